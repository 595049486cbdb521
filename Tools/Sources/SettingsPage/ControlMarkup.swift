import Foundation
import PropertyList

/// A row's control as `control.mustache` draws it, its value filled in: one case per kind,
/// each with what its markup needs.
///
/// The template picks the case by name (`{{#.toggle}}`): Mustache sees an enum's one case as
/// a field named after it that holds its payload.
enum ControlMarkup {
    /// A switch.
    case toggle(Toggle)
    /// A slider with a number field beside it for exact values.
    case slider(Slider)
    /// A number field.
    case number(NumberField)
    /// Radio buttons.
    case radios(Choice)
    /// A list to pick from.
    case menu(Choice)
    /// A text field.
    case text(TextField)
    /// A date and time, in UTC.
    case date(ValueField)
    /// Bytes, as base64.
    case data(ValueField)
    /// A value shown, not changed.
    case output(Output)
    /// Any value as a typed tree.
    case tree(Tree)

    /// A switch, on or off.
    struct Toggle {
        var isOn: Bool
    }

    /// A slider's bounds, step and value; the number field beside it shows the value as
    /// stored, which may lie outside the bounds.
    struct Slider {
        var minimum: String
        var maximum: String
        var step: String
        var position: String?
        var exact: String?
    }

    /// A number field's step, bounds and value.
    struct NumberField {
        var step: String
        var minimum: String?
        var maximum: String?
        var shown: String?
    }

    /// The options of a choice, and whether one of them is the value.
    struct Choice {
        var options: [Option]
        var hasSelection: Bool
    }

    /// One option: its index (what the page sends back), its words, whether it is the value.
    struct Option {
        var index: Int
        var words: String
        var isSelected: Bool
    }

    /// A text field: its input type, keyboard hints and value.
    struct TextField {
        var inputType: String
        var shown: String?
        var inputMode: String?
        var autocapitalize: String?
        var spellcheck: String
        var checksSpelling: Bool
    }

    /// A field that holds its value as text.
    struct ValueField {
        var shown: String?
    }

    /// A value shown as words.
    struct Output {
        var shown: String
    }

    /// A typed tree; nil when no layer holds a value.
    struct Tree {
        var root: TreeNodeMarkup?
    }

    /// The control of `row`, its value filled in.
    init(_ row: SettingRow) {
        let value = row.value
        switch row.control {
        case .toggle(let on, _):
            self = .toggle(Toggle(isOn: value.map { SettingRow.same($0, on) } ?? false))
        case .slider(let minimum, let maximum, let isInteger):
            self = .slider(
                Slider(
                    minimum: Self.format(minimum), maximum: Self.format(maximum), step: isInteger ? "1" : "any",
                    position: value.flatMap(SettingRow.number).map(Self.format), exact: value.map { SettingRow.text($0) }))
        case .number(let isInteger, let minimum, let maximum):
            self = .number(
                NumberField(
                    step: isInteger ? "1" : "any", minimum: minimum.map(Self.format), maximum: maximum.map(Self.format),
                    shown: value.map { SettingRow.text($0) }))
        case .choice(let values, let titles, let isRadio):
            let selected = value.flatMap { value in values.firstIndex { SettingRow.same($0, value) } }
            let choice = Choice(
                options: titles.enumerated().map { Option(index: $0.offset, words: $0.element, isSelected: $0.offset == selected) },
                hasSelection: selected != nil)
            self = isRadio ? .radios(choice) : .menu(choice)
        case .text(let inputType, let inputMode, let autocapitalize, let checksSpelling):
            var text: String?
            if case .string(let string)? = value { text = string } else { text = value.map { SettingRow.text($0) } }
            self = .text(
                TextField(
                    inputType: inputType, shown: text, inputMode: inputMode, autocapitalize: autocapitalize,
                    spellcheck: checksSpelling ? "true" : "false", checksSpelling: checksSpelling))
        case .date:
            var text: String?
            if case .date(let date)? = value { text = DateText.text(of: date) }
            self = .date(ValueField(shown: text))
        case .data:
            var text: String?
            if case .data(let data)? = value { text = data.base64EncodedString() }
            self = .data(ValueField(shown: text))
        case .titleValue(let values, let titles):
            var shown = value.map { SettingRow.text($0) } ?? ""
            if let value, let values, let titles, let index = values.firstIndex(where: { SettingRow.same($0, value) }), index < titles.count {
                shown = titles[index]
            } else if case .string(let string)? = value {
                shown = string
            }
            self = .output(Output(shown: shown))
        case .tree:
            self = .tree(Tree(root: value.map { TreeNodeMarkup($0, label: row.key, isDisabled: row.isLocked) }))
        }
    }

    /// A number as the page's inputs take it: integers without a fraction.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}
