public import Foundation
public import PropertyList

extension PreferenceSchema {
    /// Parses a native schema: a property-list dictionary (XML, binary or old-style text).
    ///
    /// ```xml
    /// <dict>
    ///   <key>Domain</key>  <string>com.example.greeter</string>   <!-- optional -->
    ///   <key>Keys</key>
    ///   <dict>
    ///     <key>Volume</key>
    ///     <dict>
    ///       <key>Type</key>        <string>integer</string>
    ///       <key>Default</key>     <integer>50</integer>
    ///       <key>Minimum</key>     <integer>0</integer>
    ///       <key>Maximum</key>     <integer>100</integer>
    ///       <key>Summary</key>     <string>How loud the greeting is.</string>
    ///       <key>RenamedFrom</key> <array><string>SoundLevel</string></array>
    ///     </dict>
    ///   </dict>
    /// </dict>
    /// ```
    ///
    /// Per key: `Type` (required: `string`, `integer`, `real`, `boolean`, `date`, `data`,
    /// `array`, `dictionary`), `ElementType` (arrays), `Default`, `Minimum` and `Maximum`
    /// (numbers), `Choices`, `ChoiceTitles`, `Summary`, `Description`, `RenamedFrom` (a string
    /// or an array of strings), `Group`, `SwiftName`, `Private` (a boolean). Any other field is an error, so a
    /// misspelt rule is never silently ignored.
    ///
    /// - Throws: ``SchemaError`` naming `path` and the key path of the first problem.
    public init(native data: Data, path: String) throws(SchemaError) {
        let root: PropertyListValue
        do throws(PropertyListError) {
            root = try PropertyListValue(decodingAnyFormat: data)
        } catch {
            throw SchemaError(.invalidPropertyList, path: path, "the file is not a property list: \(error)")
        }
        try self.init(nativePropertyList: root, path: path)
    }

    /// Parses a native schema already decoded (see ``init(native:path:)``).
    public init(nativePropertyList root: PropertyListValue, path: String) throws(SchemaError) {
        var parser = NativeSchemaParser(path: path)
        self = try parser.parse(root)
    }
}

/// The checks behind ``PreferenceSchema/init(native:path:)``, one key path at a time.
struct NativeSchemaParser {
    let path: String

    static let topFields: Set<String> = ["Domain", "Keys", "Version"]
    static let keyFields: Set<String> = [
        "Type", "ElementType", "Default", "Minimum", "Maximum", "Choices", "ChoiceTitles", "Summary", "Description",
        "RenamedFrom", "Group", "SwiftName", "Private",
    ]

    func fail(_ code: SchemaError.Code, _ keyPath: String, _ reason: String) -> SchemaError {
        SchemaError(code, path: path, keyPath: keyPath, reason)
    }

    mutating func parse(_ root: PropertyListValue) throws(SchemaError) -> PreferenceSchema {
        guard case .dictionary(let top) = root else {
            throw fail(.malformed, "", "the top value is \(SchemaViolation.render(root)), not a dictionary")
        }
        for field in top.keys.sorted() where !Self.topFields.contains(field) {
            throw fail(.malformed, field, "unknown field; a schema has Domain, Keys and Version")
        }
        var domain: String?
        if let value = top["Domain"] {
            guard case .string(let name) = value else { throw fail(.malformed, "Domain", "must be a string") }
            domain = name
        }
        if let version = top["Version"], version != .integer(1) {
            throw fail(.malformed, "Version", "this library reads schema version 1, not \(SchemaViolation.render(version))")
        }
        guard let keysValue = top["Keys"] else { throw fail(.malformed, "Keys", "missing: a schema declares its keys under Keys") }
        guard case .dictionary(let entries) = keysValue else { throw fail(.malformed, "Keys", "must be a dictionary of key declarations") }
        // Keyed as it is parsed: the names are the dictionary's, so unique, and building an
        // array first and a table from it copied every declaration twice.
        var keys: [String: DeclaredKey] = [:]
        keys.reserveCapacity(entries.count)
        // Keys with old names, collected on the way: filtering the table afterwards copied
        // every declaration (and retained each of its fields) once more.
        var renamed: [DeclaredKey] = []
        do {
            // In the dictionary's order: sorting hundreds of names costs more than the rest of
            // the check. Only a failing schema is walked again in sorted order, so the error
            // reported is always the first by name.
            for (name, value) in entries {
                let key = try parseKey(name, value)
                if !key.renamedFrom.isEmpty { renamed.append(key) }
                keys[name] = key
            }
        } catch {
            for name in entries.keys.sorted() { _ = try parseKey(name, entries[name]!) }
            throw error
        }
        try checkRenames(renamed, declared: { keys[$0] != nil }, place: { "Keys.\($0).RenamedFrom" })
        return PreferenceSchema(table: keys, path: path, format: .native, files: [path], domain: domain)
    }

    func parseKey(_ name: String, _ value: PropertyListValue) throws(SchemaError) -> DeclaredKey {
        // Built only for an error: formatting a path for every key of a large schema cost a
        // noticeable share of reading it.
        var at: String { "Keys.\(name)" }
        guard !name.isEmpty else { throw fail(.malformed, "Keys", "a key's name is empty") }
        guard case .dictionary(let fields) = value else { throw fail(.malformed, at, "must be a dictionary with at least a Type") }
        // One pass over the fields, matched by name with a switch (field names are small
        // strings, compared in a word or two) rather than a hash lookup per field: for a large
        // schema the lookups were most of the check. The least unknown name is reported, so
        // the error does not depend on the dictionary's order.
        var typeField, elementTypeField, defaultField, minimumField, maximumField, choicesField, titlesField: PropertyListValue?
        var summaryField, descriptionField, renamedFromField, groupField, swiftNameField, privateField: PropertyListValue?
        var unknown: String?
        for (field, value) in fields {
            switch field {
            case "Type": typeField = value
            case "ElementType": elementTypeField = value
            case "Default": defaultField = value
            case "Minimum": minimumField = value
            case "Maximum": maximumField = value
            case "Choices": choicesField = value
            case "ChoiceTitles": titlesField = value
            case "Summary": summaryField = value
            case "Description": descriptionField = value
            case "RenamedFrom": renamedFromField = value
            case "Group": groupField = value
            case "SwiftName": swiftNameField = value
            case "Private": privateField = value
            default: if unknown.map({ field < $0 }) ?? true { unknown = field }
            }
        }
        if let unknown {
            throw fail(.malformed, "\(at).\(unknown)", "unknown field; a key has " + Self.keyFields.sorted().joined(separator: ", "))
        }
        func string(_ value: PropertyListValue?, _ field: String) throws(SchemaError) -> String? {
            guard let value else { return nil }
            guard case .string(let text) = value else { throw fail(.malformed, "\(at).\(field)", "must be a string") }
            return text
        }
        guard let typeName = try string(typeField, "Type") else { throw fail(.malformed, "\(at).Type", "missing: every key declares its type") }
        guard var type = DeclaredType(name: typeName) else {
            throw fail(.unknownType, "\(at).Type", "unknown type \"\(typeName)\"; use string, integer, real, boolean, date, data, array or dictionary")
        }
        if let elementName = try string(elementTypeField, "ElementType") {
            guard case .array = type else { throw fail(.malformed, "\(at).ElementType", "only arrays have an element type") }
            guard let element = DeclaredType(name: elementName) else {
                throw fail(.unknownType, "\(at).ElementType", "unknown type \"\(elementName)\"")
            }
            type = .array(element: element)
        }
        var key = DeclaredKey(name: name, type: type)
        key.summary = try string(summaryField, "Summary")
        key.details = try string(descriptionField, "Description")
        key.group = try string(groupField, "Group")
        key.swiftName = try string(swiftNameField, "SwiftName")
        switch privateField {
        case nil: break
        case .bool(let flag)?: key.isPrivate = flag
        default: throw fail(.malformed, "\(at).Private", "must be a boolean")
        }
        switch renamedFromField {
        case nil: break
        case .string(let old)?:
            // Empty is refused as in the array form below: "" is no key's old name.
            guard !old.isEmpty else { throw fail(.malformed, "\(at).RenamedFrom", "must be a key name (a non-empty string)") }
            key.renamedFrom = [old]
        case .array(let olds)?:
            for (index, old) in olds.enumerated() {
                guard case .string(let text) = old, !text.isEmpty else {
                    throw fail(.malformed, "\(at).RenamedFrom[\(index)]", "must be a key name (a non-empty string)")
                }
                key.renamedFrom.append(text)
            }
        default: throw fail(.malformed, "\(at).RenamedFrom", "must be a string or an array of strings")
        }
        // Each bound checked by a nested function, not a loop over an array literal: that
        // allocated an array for every key of the schema.
        func bound(_ given: PropertyListValue?, _ field: String) throws(SchemaError) -> PropertyListValue? {
            guard let value = given else { return nil }
            guard type.isNumeric else { throw fail(.malformed, "\(at).\(field)", "only integer and real keys have a range") }
            guard type.admits(value) else { throw fail(.malformed, "\(at).\(field)", "must be \(type.withArticle), not \(SchemaViolation.render(value))") }
            // A NaN bound compares with nothing: it would bound nothing (and refuse NaN only).
            guard NumericOrder.real(value)?.isNaN != true else { throw fail(.malformed, "\(at).\(field)", "must be a number, not NaN") }
            return value
        }
        key.minimum = try bound(minimumField, "Minimum")
        key.maximum = try bound(maximumField, "Maximum")
        if let minimum = key.minimum, let maximum = key.maximum, NumericOrder(minimum, maximum) == .above {
            throw fail(.invalidDefault, "\(at).Minimum", "the minimum \(SchemaViolation.render(minimum)) is above the maximum \(SchemaViolation.render(maximum))")
        }
        if let value = choicesField {
            guard case .array(let choices) = value, !choices.isEmpty else {
                throw fail(.malformed, "\(at).Choices", "must be a non-empty array of allowed values")
            }
            var rangeOnly = key
            rangeOnly.choices = nil
            for (index, choice) in choices.enumerated() {
                if let (rule, _) = rangeOnly.firstViolation(of: choice) {
                    throw fail(.invalidDefault, "\(at).Choices[\(index)]", "\(SchemaViolation.render(choice)) \(rule)")
                }
            }
            key.choices = choices
        }
        if let value = titlesField {
            guard case .array(let titles) = value, let strings = Optional(titles.compactMap(\.stringValue)),
                strings.count == titles.count, strings.count == key.choices?.count
            else {
                throw fail(.malformed, "\(at).ChoiceTitles", "must be an array of strings, one for each of Choices")
            }
            key.choiceTitles = strings
        }
        if let value = defaultField {
            if let (rule, elements) = key.firstViolation(of: value) {
                let element = elements.isEmpty ? "" : " (element " + elements.map { "[\($0)]" }.joined() + ")"
                throw fail(.invalidDefault, "\(at).Default", "the default \(SchemaViolation.render(value)) breaks its own rule: \(rule)\(element)")
            }
            key.defaultValue = value
        }
        return key
    }

    /// Old names must be distinct and must not be declared keys themselves: a value cannot
    /// move to two places, nor away from a key that is still in use.
    /// `renamed` holds the keys with old names (usually few); `declared` tells whether a
    /// name is a declared key.
    func checkRenames(_ renamed: [DeclaredKey], declared: (String) -> Bool, place: (String) -> String) throws(SchemaError) {
        var seen: [String: String] = [:]
        // By name, so which of two keys is reported does not depend on the parse's order.
        for key in renamed.sorted(by: { $0.name < $1.name }) {
            for old in key.renamedFrom {
                if declared(old) {
                    throw fail(.duplicateKey, place(key.name), "\"\(old)\" is declared as a key itself, so it cannot be an old name")
                }
                if let other = seen[old], other != key.name {
                    throw fail(.duplicateKey, place(key.name), "\"\(old)\" is also an old name of \(other)")
                }
                seen[old] = key.name
            }
        }
    }
}
