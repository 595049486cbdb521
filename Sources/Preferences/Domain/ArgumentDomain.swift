import Foundation

/// The argument domain: `-Key value` pairs from the command line, as on Apple's systems.
///
/// An argument `-Key` (one dash, then a name that is not a number) takes the next argument
/// as its value, even when that value looks like a negative number (`-Offset -5`); a key
/// followed by another key, or by nothing, is ignored. Arguments starting with `--`
/// belong to the program's own option parser on Linux and are skipped. A value starting
/// with `{`, `(`, `<` or `"` is parsed as an old-style (or, for `<?xml`/`<plist`, XML)
/// property list, and one starting with `[` as a JSON array; if it does not parse, it is
/// kept as the string it is. Any other value is a string, as on Apple's systems (typed
/// getters coerce it: `integer(forKey:)` of `"5"` is 5).
enum ArgumentDomain {
    /// The values named by `arguments` (the first element, the program's path, is skipped).
    static func values(from arguments: [String]) -> [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard isKey(argument) else {
                index += 1
                continue
            }
            guard index + 1 < arguments.count, !isKey(arguments[index + 1]) else {
                index += 1
                continue
            }
            values[String(argument.dropFirst())] = parseValue(arguments[index + 1])
            index += 2
        }
        return values
    }

    /// True for `-Name`: one dash, then something that is not a number.
    static func isKey(_ argument: String) -> Bool {
        guard argument.count > 1, argument.hasPrefix("-"), !argument.hasPrefix("--") else { return false }
        return !looksNumeric(argument)
    }

    private static func looksNumeric(_ text: String) -> Bool {
        Double(text) != nil || Int(text) != nil
    }

    static func parseValue(_ text: String) -> PropertyListValue {
        guard let first = text.first else { return .string(text) }
        switch first {
        case "<" where text.hasPrefix("<?xml") || text.hasPrefix("<plist"):
            if let value = try? XMLPropertyListDecoder().decode(Array(text.utf8)) { return value }
        case "{", "(", "<", "\"":
            if let value = try? OpenStepPropertyListDecoder().decode(text) { return value }
        case "[":
            if let data = text.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                let value = PropertyListValue(bridging: object)
            {
                return value
            }
        default:
            break
        }
        return .string(text)
    }
}
