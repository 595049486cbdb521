import DefaultsCommand
package import Preferences

/// How a setting is changed on its page.
package enum SettingControl: Sendable, Equatable {
    /// A switch; `on` and `off` are the values it stores.
    case toggle(on: PropertyListValue, off: PropertyListValue)
    /// A slider between two numbers, with a number field beside it for exact values.
    case slider(minimum: Double, maximum: Double, isInteger: Bool)
    /// A number field, with the declared bounds if any.
    case number(isInteger: Bool, minimum: Double?, maximum: Double?)
    /// One of `values`, named by `titles`: a list to pick from, or radio buttons.
    case choice(values: [PropertyListValue], titles: [String], isRadio: Bool)
    /// A text field: its input type (`text`, `password`, `email`, `url`) and keyboard hints.
    case text(inputType: String, inputMode: String?, autocapitalize: String?, checksSpelling: Bool)
    /// A date and time, in UTC.
    case date
    /// Bytes, typed as base64.
    case data
    /// A value shown, not changed; `titles` name `values` when given.
    case titleValue(values: [PropertyListValue]?, titles: [String]?)
    /// Any property-list value as a typed tree (dictionaries and arrays, each element typed).
    case tree
}

/// One setting as a page shows it: its words, its control, and where its value comes from.
package struct SettingRow: Sendable, Equatable {
    /// The key in the domain.
    package var key: String
    /// The words that name it: the specifier's title, the schema's summary, or the key.
    package var title: String
    /// Lines of help under the title: summary, details, range, default.
    package var help: [String]
    /// How it is changed.
    package var control: SettingControl
    /// The value reads return: the first layer's that keeps the schema's rules.
    package var value: PropertyListValue?
    /// What the value is when the domain sets nothing.
    package var defaultValue: PropertyListValue?
    /// The layer the value comes from; nil when no layer holds one.
    package var layer: PreferenceSource.Layer?
    /// Where the layer's writer says the value came from (fleet policy's etcd key).
    package var layerOrigin: String?
    /// True when a managed layer forces the value: the control is disabled.
    package var isLocked: Bool { layer == .forced }
    /// True when this domain's own file holds the key, so a reset removes something.
    package var domainHoldsKey: Bool
    /// The layer of the domain's own file, which changes write and a reset removes from:
    /// `app`, or `global` on the global domain's page.
    package var ownLayer: PreferenceSource.Layer = .app
    /// True when the value is the user's own and differs from the default.
    package var isChangedFromDefault: Bool {
        let own: [PreferenceSource.Layer] = ownLayer == .global ? [.global, .globalByHost] : [.app, .byHost]
        guard let value, let layer, own.contains(layer) else { return false }
        guard let defaultValue else { return true }
        return !SettingRow.same(value, defaultValue)
    }
    /// True for a key the domain declares.
    package var isDeclared: Bool

    /// Creates a row.
    package init(
        key: String, title: String, help: [String] = [], control: SettingControl, value: PropertyListValue? = nil,
        defaultValue: PropertyListValue? = nil, layer: PreferenceSource.Layer? = nil, layerOrigin: String? = nil,
        domainHoldsKey: Bool = false, isDeclared: Bool
    ) {
        self.key = key
        self.title = title
        self.help = help
        self.control = control
        self.value = value
        self.defaultValue = defaultValue
        self.layer = layer
        self.layerOrigin = layerOrigin
        self.domainHoldsKey = domainHoldsKey
        self.isDeclared = isDeclared
    }

    /// Fills in the value, its layer and whether the domain holds the key, from a store's
    /// sources for the key (``PreferenceStore/sources(forKey:)``); `ownLayer` is the layer
    /// of the domain's own file.
    package mutating func resolve(_ sources: [PreferenceSource], ownLayer: PreferenceSource.Layer = .app) {
        let winner = sources.first { $0.violation == nil }
        value = winner?.value
        layer = winner?.layer
        layerOrigin = winner?.origin
        self.ownLayer = ownLayer
        domainHoldsKey = sources.contains { $0.layer == ownLayer }
    }

    /// Whether two values are the same setting: equal, or equal numbers.
    static func same(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        if lhs == rhs { return true }
        guard let left = number(lhs), let right = number(rhs) else { return false }
        return left == right
    }

    /// A number's value as a real, nil for anything else.
    static func number(_ value: PropertyListValue) -> Double? {
        switch value {
        case .integer(let integer): integer.doubleValue
        case .double(let double): double
        case .float(let float): Double(float)
        default: nil
        }
    }
}

extension SettingRow {
    /// The row of a Settings.bundle specifier that shows a key.
    package init(specifier: SettingsSpecifier, declaration: DeclaredKey?) {
        let key = specifier.key ?? ""
        var help: [String] = []
        let control: SettingControl
        switch specifier.kind {
        case .toggleSwitch:
            control = .toggle(on: specifier.trueValue ?? .bool(true), off: specifier.falseValue ?? .bool(false))
        case .slider:
            let low = specifier.minimum.flatMap(Self.number) ?? 0, high = specifier.maximum.flatMap(Self.number) ?? 1
            control = .slider(minimum: low, maximum: high, isInteger: false)
            help.append("From \(Self.text(specifier.minimum)) to \(Self.text(specifier.maximum))")
        case .multiValue, .radioGroup:
            let values = specifier.values ?? []
            control = .choice(values: values, titles: specifier.titles ?? values.map { Self.text($0) }, isRadio: specifier.kind == .radioGroup)
        case .textField:
            let inputType = specifier.isSecure ? "password" : (["URL": "url", "EmailAddress": "email"][specifier.keyboardType ?? ""] ?? "text")
            let inputMode = ["NumberPad": "numeric", "DecimalPad": "decimal", "URL": "url", "EmailAddress": "email"][specifier.keyboardType ?? ""]
            let capitalize = ["None": "off", "Sentences": "sentences", "Words": "words", "AllCharacters": "characters"][specifier.autocapitalization ?? ""]
            // Addresses are not words: no spelling check for them whatever the bundle says.
            let isAddress = inputType == "email" || inputType == "url"
            control = .text(inputType: inputType, inputMode: inputMode, autocapitalize: capitalize, checksSpelling: specifier.autocorrection != "No" && !isAddress)
        case .titleValue:
            control = .titleValue(values: specifier.values, titles: specifier.titles)
        case .group, .childPane:
            control = .titleValue(values: nil, titles: nil)
        }
        if let details = declaration?.details { help.append(details) }
        if declaration?.isPrivate == true { help.append(Self.privateNote) }
        self.init(
            key: key, title: specifier.title ?? key, help: help, control: control,
            defaultValue: declaration?.defaultValue ?? specifier.defaultValue, isDeclared: true)
    }

    /// The row of a key a native schema declares.
    package init(declaration key: DeclaredKey) {
        var help: [String] = []
        if key.summary != nil, let details = key.details { help.append(details) }
        let control: SettingControl
        let low = key.minimum.flatMap(Self.number), high = key.maximum.flatMap(Self.number)
        if let choices = key.choices {
            control = .choice(values: choices, titles: key.choiceTitles ?? choices.map { Self.text($0) }, isRadio: false)
        } else {
            switch key.type {
            case .boolean: control = .toggle(on: .bool(true), off: .bool(false))
            case .integer, .real:
                if let low, let high {
                    control = .slider(minimum: low, maximum: high, isInteger: key.type == .integer)
                } else {
                    control = .number(isInteger: key.type == .integer, minimum: low, maximum: high)
                }
            case .string:
                // A private string is typed hidden, as a Settings.bundle's secure field is.
                control = .text(inputType: key.isPrivate ? "password" : "text", inputMode: nil, autocapitalize: key.isPrivate ? "off" : nil, checksSpelling: !key.isPrivate)
            case .date: control = .date
            case .data: control = .data
            default: control = .tree
            }
        }
        switch (key.minimum, key.maximum) {
        case (let low?, let high?): help.append("From \(Self.text(low)) to \(Self.text(high))")
        case (let low?, nil): help.append("At least \(Self.text(low))")
        case (nil, let high?): help.append("At most \(Self.text(high))")
        case (nil, nil): break
        }
        if let value = key.defaultValue, !key.isPrivate { help.append("Default: \(Self.text(value, among: key))") }
        if key.isPrivate { help.append(Self.privateNote) }
        self.init(key: key.name, title: key.summary ?? key.name, help: help, control: control, defaultValue: key.defaultValue, isDeclared: true)
    }

    /// The help line of a private key.
    static let privateNote = "Private: kept out of the history, exports and logs"

    /// The row of a key no declaration covers: a typed tree, as dconf-editor shows keys.
    package init(undeclared key: String) {
        self.init(key: key, title: key, control: .tree, isDeclared: false)
    }

    /// A value on one line, as `defaults` prints it, except a real: as a number, since it
    /// fills number inputs. Old-style text has no reals and quotes them (`"0.5"`), which a
    /// number input takes for no value at all.
    static func text(_ value: PropertyListValue?) -> String {
        switch value {
        case .double(let real)?: String(real)
        case .float(let real)?: String(real)
        default: CompactText.encode(value)
        }
    }

    /// A value by its choice title, if it is one of `key`'s choices.
    static func text(_ value: PropertyListValue, among key: DeclaredKey) -> String {
        if let choices = key.choices, let titles = key.choiceTitles, titles.count == choices.count,
            let index = choices.firstIndex(where: { same($0, value) })
        {
            return titles[index]
        }
        return text(value)
    }
}
