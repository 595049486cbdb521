import PropertyList

/// Reads an Apple Settings.bundle as a schema: the `PreferenceSpecifiers` of `Root.plist`
/// and of every child pane it leads to.
///
/// | Specifier | Declares |
/// |---|---|
/// | `PSToggleSwitchSpecifier` | a boolean, or with `TrueValue`/`FalseValue` a key whose only values are those two |
/// | `PSMultiValueSpecifier`, `PSRadioGroupSpecifier` | choices from `Values` (titles from `Titles`) |
/// | `PSSliderSpecifier` | a real from `MinimumValue` to `MaximumValue` |
/// | `PSTextFieldSpecifier` | a string; a private one with `IsSecure` |
/// | `PSTitleValueSpecifier` | a key of its default's type |
/// | `PSChildPaneSpecifier` | the keys of `<File>.plist` in the same bundle |
/// | `PSGroupSpecifier` | the group of the keys after it |
///
/// Types not stated are taken from the default and the values. A specifier's `Title`
/// becomes the key's summary. A pane that several panes lead to is read once.
enum SettingsBundle {
    /// The bundle directory when `path` names one (`X.bundle`, `X.bundle/`, or
    /// `X.bundle/Root.plist`), else nil.
    static func bundleDirectory(of path: String) -> String? {
        let trimmed = path.trimmingTrailingSlashes()
        if trimmed.hasSuffix(".bundle") { return trimmed }
        if trimmed.hasSuffix(".bundle/Root.plist") { return String(trimmed.dropLast("/Root.plist".count)) }
        return nil
    }

    /// Reads `bundle`'s `Root.plist` and its child panes.
    static func read(bundle: String, reader: SchemaFileReader, domain: String? = nil) throws(SchemaError) -> PreferenceSchema {
        var visitor = Visitor(bundle: bundle, reader: reader)
        try visitor.visit(file: "Root", chain: [])
        let root = bundle + "/Root.plist"
        let native = NativeSchemaParser(path: root)
        let names = Set(visitor.keys.map(\.name))
        try native.checkRenames(visitor.keys.filter { !$0.renamedFrom.isEmpty }, declared: names.contains, place: { "\($0)" })
        return PreferenceSchema(keys: visitor.keys, path: root, format: .settingsBundle, files: visitor.files, domain: domain)
    }

    /// One walk through the panes.
    struct Visitor {
        let bundle: String
        let reader: SchemaFileReader
        var keys: [DeclaredKey] = []
        /// Where each key was declared, for the duplicate error.
        var places: [String: String] = [:]
        var files: [String] = []
        /// Each pane as read, titles still raw, in the order first reached.
        var panes: [SettingsPane] = []

        mutating func visit(file stem: String, chain: [String]) throws(SchemaError) {
            let path = "\(bundle)/\(stem).plist"
            if chain.contains(stem) {
                throw SchemaError(.cycle, path: path, "child panes lead back to \(stem).plist: " + (chain + [stem]).joined(separator: " -> "))
            }
            // A bound on depth as well: a chain of distinct panes is finite but could be long.
            guard chain.count < 32 else {
                throw SchemaError(.malformed, path: path, "child panes nest more than 32 deep")
            }
            // A pane already read (reached again through another parent: not a cycle) is not
            // read again. Else panes that each name the next one twice were walked 2^depth
            // times, and with no keys to collide nothing stopped the walk: a hang.
            guard !files.contains(path) else { return }
            files.append(path)
            let root = try reader.propertyList(path)
            guard case .dictionary(let top) = root else {
                throw SchemaError(.malformed, path: path, "the top value is not a dictionary")
            }
            guard case .array(let specifiers)? = top["PreferenceSpecifiers"] else {
                throw SchemaError(.malformed, path: path, keyPath: "PreferenceSpecifiers", "missing or not an array")
            }
            let paneIndex = panes.count
            panes.append(SettingsPane(file: stem, title: top["Title"]?.stringValue, stringsTable: top["StringsTable"]?.stringValue, specifiers: []))
            var group: String?
            for (index, item) in specifiers.enumerated() {
                let at = "PreferenceSpecifiers[\(index)]"
                func fail(_ code: SchemaError.Code, _ field: String?, _ reason: String) -> SchemaError {
                    SchemaError(code, path: path, keyPath: field.map { "\(at).\($0)" } ?? at, reason)
                }
                guard case .dictionary(let spec) = item else { throw fail(.malformed, nil, "a specifier must be a dictionary") }
                guard case .string(let type)? = spec["Type"] else { throw fail(.malformed, "Type", "missing or not a string") }
                let title = spec["Title"]?.stringValue
                var shown = SettingsSpecifier(kind: .group, title: title, footer: spec["FooterText"]?.stringValue)
                switch type {
                case "PSGroupSpecifier":
                    group = title
                    panes[paneIndex].specifiers.append(shown)
                    continue
                case "PSChildPaneSpecifier":
                    guard case .string(let child)? = spec["File"], !child.isEmpty, !child.contains("/"), child != ".", child != "..",
                        !child.utf8.contains(0)
                    else {
                        throw fail(.malformed, "File", "must name a file in the same bundle (one path component, without .plist)")
                    }
                    shown.kind = .childPane
                    shown.childPane = child
                    panes[paneIndex].specifiers.append(shown)
                    try visit(file: child, chain: chain + [stem])
                    continue
                default: break
                }
                guard case .string(let name)? = spec["Key"], !name.isEmpty else {
                    throw fail(.malformed, "Key", "missing: a \(type) declares a key")
                }
                let defaultValue = spec["DefaultValue"]
                shown.key = name
                shown.defaultValue = defaultValue
                var key: DeclaredKey
                switch type {
                case "PSToggleSwitchSpecifier":
                    let on = spec["TrueValue"], off = spec["FalseValue"]
                    shown.kind = .toggleSwitch
                    shown.trueValue = on
                    shown.falseValue = off
                    if on != nil || off != nil {
                        let values = [on ?? .bool(true), off ?? .bool(false)]
                        guard let common = commonType(values) else {
                            throw fail(.malformed, "TrueValue", "TrueValue and FalseValue must have one type")
                        }
                        key = DeclaredKey(name: name, type: common, choices: values)
                        // A boolean default stands for the switch's position.
                        if case .bool(let isOn)? = defaultValue, common != .boolean {
                            key.defaultValue = isOn ? values[0] : values[1]
                        } else {
                            key.defaultValue = defaultValue
                        }
                    } else {
                        key = DeclaredKey(name: name, type: .boolean, defaultValue: defaultValue)
                    }
                case "PSMultiValueSpecifier", "PSRadioGroupSpecifier":
                    guard case .array(let values)? = spec["Values"], !values.isEmpty else {
                        throw fail(.malformed, "Values", "missing or empty: a \(type) lists its values")
                    }
                    guard let common = commonType(values + (defaultValue.map { [$0] } ?? [])) else {
                        throw fail(.malformed, "Values", "the values (and default) must have one type")
                    }
                    key = DeclaredKey(name: name, type: common, defaultValue: defaultValue, choices: values)
                    if case .array(let titles)? = spec["Titles"] {
                        let strings = titles.compactMap(\.stringValue)
                        guard strings.count == titles.count, strings.count == values.count else {
                            throw fail(.malformed, "Titles", "must be strings, one for each of Values")
                        }
                        key.choiceTitles = strings
                        shown.titles = strings
                    }
                    shown.kind = type == "PSMultiValueSpecifier" ? .multiValue : .radioGroup
                    shown.values = values
                case "PSSliderSpecifier":
                    guard let low = spec["MinimumValue"], let high = spec["MaximumValue"],
                        DeclaredType.real.admits(low), DeclaredType.real.admits(high),
                        // A NaN bound compares with nothing, so it would bound nothing.
                        NumericOrder.real(low)?.isNaN == false, NumericOrder.real(high)?.isNaN == false
                    else {
                        throw fail(.malformed, "MinimumValue", "a slider needs numeric MinimumValue and MaximumValue")
                    }
                    guard NumericOrder(low, high) != .above else {
                        throw fail(.invalidDefault, "MinimumValue", "the minimum is above the maximum")
                    }
                    key = DeclaredKey(name: name, type: .real, defaultValue: defaultValue, minimum: low, maximum: high)
                    shown.kind = .slider
                    shown.minimum = low
                    shown.maximum = high
                case "PSTextFieldSpecifier":
                    key = DeclaredKey(name: name, type: .string, defaultValue: defaultValue)
                    shown.kind = .textField
                    shown.isSecure = spec["IsSecure"] == .bool(true)
                    // A field the Settings app hides as it is typed holds a secret.
                    key.isPrivate = shown.isSecure
                    shown.keyboardType = spec["KeyboardType"]?.stringValue
                    shown.autocapitalization = spec["AutocapitalizationType"]?.stringValue
                    shown.autocorrection = spec["AutocorrectionType"]?.stringValue
                case "PSTitleValueSpecifier":
                    guard let defaultValue else {
                        throw fail(.malformed, "DefaultValue", "a title value shows its DefaultValue, which is missing")
                    }
                    key = DeclaredKey(name: name, type: DeclaredType(of: defaultValue), defaultValue: defaultValue)
                    shown.kind = .titleValue
                    // Optional words for the values it may show; ignored unless they pair up.
                    if case .array(let values)? = spec["Values"], case .array(let titles)? = spec["Titles"] {
                        let strings = titles.compactMap(\.stringValue)
                        if strings.count == titles.count, strings.count == values.count {
                            shown.values = values
                            shown.titles = strings
                        }
                    }
                default:
                    throw fail(.malformed, "Type", "unknown specifier type \"\(type)\"")
                }
                key.summary = title
                key.group = group
                if let value = key.defaultValue, let (rule, _) = key.firstViolation(of: value) {
                    throw fail(.invalidDefault, "DefaultValue", "the default \(SchemaViolation.render(value)) breaks its own rule: \(rule)")
                }
                if let earlier = places[name] {
                    throw fail(.duplicateKey, "Key", "\"\(name)\" is declared twice (first at \(earlier))")
                }
                places[name] = "\(stem).plist \(at)"
                keys.append(key)
                panes[paneIndex].specifiers.append(shown)
            }
        }
    }

    /// The one type `values` share: integers and reals together are reals; nil when they
    /// mix anything else.
    static func commonType(_ values: [PropertyListValue]) -> DeclaredType? {
        var types = Set(values.map(DeclaredType.init(of:)))
        if types == [.integer, .real] { types = [.real] }
        return types.count == 1 ? types.first : nil
    }
}
