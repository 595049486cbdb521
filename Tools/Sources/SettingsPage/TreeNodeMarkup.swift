import Foundation
import PropertyList

/// One node of a typed tree as `node.mustache` draws it: its type, the words that name its
/// inputs for screen readers, and its value (a leaf's text, or a container's entries).
///
/// On the page each value is a `.node` element whose `data-type` names its type; a leaf holds
/// one input, a dictionary a list of named entries, an array a list of items (see
/// ``ValueTree`` for the JSON the page sends back).
struct TreeNodeMarkup: Sendable {
    /// The type's name, as ``ValueTree/type(of:)`` gives it.
    var type: String
    /// What screen readers call the node's input (the key, then each element's index or name).
    var label: String
    /// True when the row is locked: no input can be changed, nothing added or removed.
    var isDisabled: Bool
    /// The value, by kind: the template picks the case by name (`{{#value.string}}`).
    var value: Value

    /// A node's value: a leaf's text as its input shows it, or a container's entries.
    enum Value: Sendable {
        case string(String)
        case integer(String)
        case real(String)
        case boolean(Flag)
        case date(String)
        case data(String)
        case array(Container)
        case dictionary(Container)
    }

    /// A boolean leaf: a checkbox.
    struct Flag: Sendable {
        var isOn: Bool
    }

    /// An array's or a dictionary's entries, and the types an added element may have.
    struct Container: Sendable {
        var entries: [Entry]
        var isDictionary: Bool
        /// Stored, not computed: Mustache reads stored fields only.
        var addableTypes = ValueTree.types
    }

    /// One element of a container: its index or name, and its node.
    struct Entry: Sendable {
        var name: String
        var isNamed: Bool
        var node: TreeNodeMarkup
    }

    /// The tree of `value`; `label` names its inputs.
    init(_ value: PropertyListValue, label: String, isDisabled: Bool) {
        type = ValueTree.type(of: value)
        self.label = label
        self.isDisabled = isDisabled
        switch value {
        case .string(let text): self.value = .string(text)
        case .integer(let integer): self.value = .integer(integer.description)
        case .double, .float: self.value = .real(SettingRow.text(value))
        case .bool(let flag): self.value = .boolean(Flag(isOn: flag))
        case .date(let date): self.value = .date(DateText.text(of: date))
        case .data(let data): self.value = .data(data.base64EncodedString())
        case .array(let items):
            let entries = items.enumerated().map { index, item in
                Entry(name: String(index), isNamed: false, node: TreeNodeMarkup(item, label: "\(label) [\(index)]", isDisabled: isDisabled))
            }
            self.value = .array(Container(entries: entries, isDictionary: false))
        case .dictionary(let values):
            let entries = values.keys.sorted().map { name in
                Entry(name: name, isNamed: true, node: TreeNodeMarkup(values[name]!, label: "\(label) → \(name)", isDisabled: isDisabled))
            }
            self.value = .dictionary(Container(entries: entries, isDictionary: true))
        }
    }

    /// One empty node of each type, which the page copies when an element is added.
    static let emptyNodes: [TreeNodeMarkup] = [
        PropertyListValue.string(""), .integer(0), .double(0), .bool(false), .date(Date(timeIntervalSince1970: 0)), .data(Data()), .array([]),
        .dictionary([:]),
    ].map { TreeNodeMarkup($0, label: "new entry", isDisabled: false) }
}
