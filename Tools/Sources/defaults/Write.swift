import ArgumentParser
import DefaultsCommand
import Preferences
import PropertyList

/// `defaults write domain key [type] value [key [type] value …]` and `defaults write domain 'plist'`.
struct Write: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a key's value, or replace a whole domain with a dictionary.",
        usage: "defaults write DOMAIN [--] KEY [-string|-data|-int|-float|-bool|-date] VALUE [KEY [type] VALUE ...]\n  defaults write DOMAIN [--] KEY -array|-array-add|-dict|-dict-add VALUE...\n  defaults write DOMAIN 'PLIST'",
        discussion: """
            An untyped VALUE is old-style property-list text ('{ a = 1; b = (x, y); }', '(1, 2)', \
            '<0fbd>'), an XML fragment ('<integer>5</integer>'), or else a string. -data takes \
            hexadecimal digits; -bool takes true, false, yes or no; -date takes \
            '2024-01-02 03:04:05 +0000', 2024-01-02T03:04:05Z or 2024-01-02. Elements of -array and \
            values of -dict may carry a type flag (-array -int 1 -bool yes). Several KEY VALUE pairs \
            are written in one commit: other programs see all of them change at once, or none. \
            Keys that start with a dash go after --, right after the domain.

            Examples:
              defaults write com.example.app Interval -int 60
              defaults write com.example.app Name Ada Enabled -bool yes
              defaults write com.example.app Servers -array one two
              defaults write com.example.app -- -key value
              defaults write com.example.app '{ Interval = 60; }'
            """
    )

    /// Every word after the verb, read by `WriteRequest`: the type flags are single-dash.
    @Argument(parsing: .captureForPassthrough, help: "DOMAIN KEY [type] VALUE..., or DOMAIN PLIST.")
    var words: [String] = []

    func run() throws {
        if words.first == "--help" || words.first == "-h" { throw CleanExit.helpRequest(self) }
        try Self.write(words: words)
    }

    /// What the verb does with its words; `main` calls it directly for plain words (see
    /// `DirectRun`).
    static func write(words: [String]) throws {
        var words = words
        // Only where ArgumentRewriting puts it: the same word later on is a value.
        var currentHost = false
        while words.first == "--current-host" {
            currentHost = true
            words.removeFirst()
        }
        // `--` before the domain or right after it ends the options, as in POSIX tools: every
        // key after it may start with a dash (`defaults write D -- -key value`). Later, a
        // `--` is a value, as it always was.
        var keysMayStartWithDash = false
        if words.first == "--" {
            words.removeFirst()
            keysMayStartWithDash = true
        } else if words.count > 1 && words[1] == "--" {
            words.remove(at: 1)
            keysMayStartWithDash = true
        }
        guard words.count >= 2 else {
            throw DefaultsFailure(words.isEmpty ? "write needs a domain and a value" : "write needs a key and a value, or a dictionary", usage: WriteRequest.usage)
        }
        let context = DefaultsContext(currentHost: currentHost)
        let domain = words[0] == "-g" || words[0] == "-globalDomain" ? PreferenceStore.globalDomain : words[0]
        let location = try context.location(domain)
        let files = context.files()
        if words.count == 2 {
            try replace(location, with: words[1], in: files)
            return
        }
        if let pairs = Self.keyValuePairs(Array(words.dropFirst()), keysMayStartWithDash: keysMayStartWithDash) {
            try writePairs(pairs, at: location, in: files)
            return
        }
        let key = words[1]
        let valueWords = Array(words.dropFirst(2))
        let request = try WriteRequest(parsing: valueWords)
        // A declared key's value must keep its schema's rules; untyped words are read as the
        // declared type first (`Volume 5` is the integer 5), explicitly typed ones are not.
        let schema = Self.schema(for: location, in: files)
        let declaration = schema?[key]
        if declaration?.isPrivate == true { Self.hideValueWords(valueWords) }
        let isUntyped = !valueWords.contains { WriteRequest.isScalarTypeFlag($0) }
        func checked(_ value: PropertyListValue) -> PropertyListValue {
            guard let declaration, isUntyped else { return value }
            return DeclaredValueText.coerce(value, to: declaration.type)
        }
        if case .set(let value) = request, let violation = schema?.violation(setting: checked(value), forKey: key) {
            throw DeclaredValueText.refusal(violation, domain: location.description, schema: schema)
        }
        let problem: String?
        do throws(PreferencesError) {
            switch request {
            case .set(let value):
                try files.setValues([key: checked(value)], at: location)
                problem = nil
            case .arrayAdd(let elements):
                problem = try files.modifyPersistentDomain(at: location, changing: [key]) { values -> String? in
                    let new: PropertyListValue
                    switch values[key] {
                    case nil: new = checked(.array(elements))
                    case .array(let existing)?: new = checked(.array(existing + elements))
                    case let other?: return "-array-add needs an array, but \(key) is \(Self.article(other.typeName))"
                    }
                    // Checked before the values change: a refused write must change nothing.
                    if let violation = schema?.violation(setting: new, forKey: key) {
                        return "\(key) \(violation.rule), not \(DeclaredValueText.shown(violation, in: schema))"
                    }
                    values[key] = new
                    return nil
                }
            case .dictAdd(let entries):
                problem = try files.modifyPersistentDomain(at: location, changing: [key]) { values -> String? in
                    let new: PropertyListValue
                    switch values[key] {
                    case nil: new = .dictionary(entries)
                    case .dictionary(let existing)?: new = .dictionary(existing.merging(entries) { _, new in new })
                    case let other?: return "-dict-add needs a dictionary, but \(key) is \(Self.article(other.typeName))"
                    }
                    if let violation = schema?.violation(setting: new, forKey: key) {
                        return "\(key) \(violation.rule), not \(DeclaredValueText.shown(violation, in: schema))"
                    }
                    values[key] = new
                    return nil
                }
            }
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
        if let problem { throw DefaultsFailure("\(location): \(problem); nothing was changed") }
    }

    /// The schema a program of `location`'s domain would use; a schema that cannot be used is
    /// reported on standard error and writes go on without it, as the program's would.
    static func schema(for location: PersistentDomainLocation, in files: PreferenceFiles) -> PreferenceSchema? {
        do throws(PreferencesError) {
            return try files.schema(for: location)
        } catch {
            Output.error("warning: \(location): \(error.description); values are not checked against it")
            return nil
        }
    }

    /// `defaults write domain 'plist'`: the text must be a dictionary; it becomes the domain.
    /// `KEY1 [type] VALUE1 KEY2 [type] VALUE2 …` as pairs, or nil for everything else: the
    /// one-key forms (one pair, or a container flag, whose elements take every word after it),
    /// and words that do not pair up, which the one-key form then reports in its own words.
    /// After `--` (`keysMayStartWithDash`) a key such as `-key` is a key, not a mistyped flag.
    static func keyValuePairs(_ words: [String], keysMayStartWithDash: Bool = false) -> [(key: String, words: [String])]? {
        let containerFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]
        guard words.count > 2, !words.contains(where: containerFlags.contains) else { return nil }
        var pairs: [(key: String, words: [String])] = []
        var index = 0
        while index < words.count {
            let key = words[index]
            // A flag where a key belongs is a mistake in a one-key write (`KEY -frob 1`).
            if !keysMayStartWithDash && key.hasPrefix("-") && key.dropFirst().first?.isLetter == true { return nil }
            index += 1
            var valueWords: [String] = []
            if index < words.count, WriteRequest.isScalarTypeFlag(words[index]) {
                valueWords.append(words[index])
                index += 1
            }
            guard index < words.count else { return nil }
            valueWords.append(words[index])
            index += 1
            pairs.append((key, valueWords))
        }
        return pairs.count > 1 ? pairs : nil
    }

    /// Several keys in one commit: one rename, one change for every watcher, all or nothing.
    private static func writePairs(
        _ pairs: [(key: String, words: [String])], at location: PersistentDomainLocation, in files: PreferenceFiles
    ) throws {
        let schema = Self.schema(for: location, in: files)
        var changes: [String: PropertyListValue?] = [:]
        Self.hideValueWords(pairs.filter { schema?[$0.key]?.isPrivate == true }.flatMap(\.words))
        for (key, valueWords) in pairs {
            guard case .set(var value) = try WriteRequest(parsing: valueWords) else {
                throw DefaultsFailure("write: \(valueWords.joined(separator: " ")) is not a single value", usage: WriteRequest.usage)
            }
            if let declaration = schema?[key], !valueWords.contains(where: WriteRequest.isScalarTypeFlag) {
                value = DeclaredValueText.coerce(value, to: declaration.type)
            }
            // Any refusal refuses them all: the file stays byte-identical.
            if let violation = schema?.violation(setting: value, forKey: key) {
                throw DeclaredValueText.refusal(violation, domain: location.description, schema: schema)
            }
            changes[key] = value
        }
        do throws(PreferencesError) {
            try files.setValues(changes, at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }

    private static func replace(_ location: PersistentDomainLocation, with text: String, in files: PreferenceFiles) throws {
        let trimmed = text.drop(while: \.isWhitespace)
        guard trimmed.first == "{" || trimmed.first == "<" else {
            throw DefaultsFailure("write needs a value after the key \(text.debugDescription), or a dictionary such as '{ key = value; }' to replace the domain", usage: WriteRequest.usage)
        }
        guard case .dictionary(var values) = try PropertyListText.value(of: text) else {
            throw DefaultsFailure("the property list given for \(location) is not a dictionary; only a dictionary can replace a domain", usage: WriteRequest.usage)
        }
        let schema = Self.schema(for: location, in: files)
        if let schema, !schema.privateKeys.isDisjoint(with: values.keys) { Self.hideValueWords([text]) }
        if let schema, let violation = DeclaredValueText.check(&values, against: schema) {
            throw DeclaredValueText.refusal(violation, domain: location.description, schema: schema)
        }
        do throws(PreferencesError) {
            try files.replacePersistentDomain(values, at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }

    /// Hides the words a private key's value was typed as from the process's command line
    /// (``PrivateValue/hideArguments(_:)``), before the write logs anything; type and
    /// container flags stay.
    static func hideValueWords(_ words: [String]) {
        let flags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]
        PrivateValue.hideArguments(Set(words.filter { !WriteRequest.isScalarTypeFlag($0) && !flags.contains($0) }))
    }

    private static func article(_ name: String) -> String {
        "aeiou".contains(name.first ?? "x") ? "an \(name)" : "a \(name)"
    }
}
