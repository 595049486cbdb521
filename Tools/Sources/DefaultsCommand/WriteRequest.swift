package import PropertyList

/// What `defaults write domain key ...` asks for, parsed from the words after the key.
///
/// Apple's syntax: an untyped value (old-style or XML property-list text, else a string),
/// or a type flag and its value: `-string`, `-data` (hex), `-int`/`-integer`, `-float`,
/// `-bool`/`-boolean`, `-date`, `-array`/`-array-add` and elements, `-dict`/`-dict-add`
/// and key-value pairs. Elements and dictionary values are untyped text or a type flag
/// and its value (`-array -int 1 two '(3)'`).
package enum WriteRequest: Sendable, Hashable {
    /// Store this value under the key.
    case set(PropertyListValue)
    /// Append these elements to the key's array (creating it).
    case arrayAdd([PropertyListValue])
    /// Add these entries to the key's dictionary (creating it), replacing equal keys.
    case dictAdd([String: PropertyListValue])

    /// The usage of `write`, for hints.
    package static let usage = "Usage: defaults write DOMAIN KEY [-string|-data|-int|-float|-bool|-date] VALUE, "
        + "defaults write DOMAIN KEY -array|-array-add|-dict|-dict-add VALUE..., or defaults write DOMAIN 'PLIST'"

    /// Parses the words after the key.
    package init(parsing words: [String]) throws(DefaultsFailure) {
        guard let first = words.first else {
            throw DefaultsFailure("write needs a value after the key", usage: Self.usage)
        }
        switch first {
        case "-array":
            self = .set(.array(try Self.elements(Array(words.dropFirst()))))
        case "-array-add":
            self = .arrayAdd(try Self.elements(Array(words.dropFirst())))
        case "-dict":
            self = .set(.dictionary(try Self.entries(Array(words.dropFirst()))))
        case "-dict-add":
            self = .dictAdd(try Self.entries(Array(words.dropFirst())))
        default:
            var index = 0
            let value = try Self.value(words, at: &index)
            guard index == words.count else {
                throw DefaultsFailure(
                    // One word left over is most likely a key given without its value in a
                    // write of several keys (`K1 V1 K2`).
                    index == words.count - 1
                        ? "unexpected \(PropertyListText.quoted(words[index])) after the value: a key without a value, or a value with spaces left unquoted"
                        : "unexpected \(PropertyListText.quoted(words[index])) after the value; quote a value that has spaces",
                    usage: Self.usage)
            }
            self = .set(value)
        }
    }

    /// The value at `index` (a type flag and its text, or untyped text); moves past it.
    static func value(_ words: [String], at index: inout Int) throws(DefaultsFailure) -> PropertyListValue {
        let word = words[index]
        guard let type = ScalarType(flag: word) else {
            if isFlag(word) {
                throw DefaultsFailure("unknown type flag \(PropertyListText.quoted(word))", usage: Self.usage)
            }
            index += 1
            return try PropertyListText.value(of: word)
        }
        guard index + 1 < words.count else {
            throw DefaultsFailure("\(word) needs a value after it", usage: Self.usage)
        }
        let text = words[index + 1]
        index += 2
        return try type.parse(text)
    }

    private static func elements(_ words: [String]) throws(DefaultsFailure) -> [PropertyListValue] {
        var elements: [PropertyListValue] = []
        var index = 0
        while index < words.count {
            if ["-array", "-array-add", "-dict", "-dict-add"].contains(words[index]) {
                throw DefaultsFailure("\(words[index]) cannot be nested; write a nested array as '(a, b)' or '<array>...</array>'", usage: usage)
            }
            elements.append(try value(words, at: &index))
        }
        return elements
    }

    private static func entries(_ words: [String]) throws(DefaultsFailure) -> [String: PropertyListValue] {
        var entries: [String: PropertyListValue] = [:]
        var index = 0
        while index < words.count {
            let key = words[index]
            if ScalarType(flag: key) != nil || ["-array", "-array-add", "-dict", "-dict-add"].contains(key) {
                throw DefaultsFailure("a dictionary key is expected where \(PropertyListText.quoted(key)) is; keys are strings", usage: usage)
            }
            index += 1
            guard index < words.count else {
                throw DefaultsFailure("the dictionary key \(PropertyListText.quoted(key)) has no value", usage: usage)
            }
            entries[key] = try value(words, at: &index)
        }
        return entries
    }

    /// True for a scalar type flag (`-string`, `-int`, `-bool`...): a value the user typed
    /// explicitly, which a schema's declared type must not reinterpret.
    package static func isScalarTypeFlag(_ word: String) -> Bool {
        ScalarType(flag: word) != nil
    }

    /// True for a word that looks like a flag rather than a value: a dash and a letter.
    static func isFlag(_ word: String) -> Bool {
        word.hasPrefix("-") && word.dropFirst().first?.isLetter == true
    }
}
