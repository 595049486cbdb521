/// The Swift names generated keys are declared under.
package enum SwiftName {
    /// The name derived from a key's name: its words in lowerCamelCase.
    ///
    /// Words are separated by anything that is not a letter or digit (`app_player_name` is
    /// `appPlayerName`, `com.example.Greeting` is `comExampleGreeting`); the first word's
    /// leading capitals are lowered (`Volume` is `volume`, `URLScheme` is `urlScheme`), the
    /// other words' first letters raised. A name that would start with a digit gets a `_`
    /// in front. Nil when the name has no letter or digit at all.
    package static func derived(from keyName: String) -> String? {
        var words: [String] = []
        var current = ""
        for scalar in keyName.unicodeScalars {
            if isWordScalar(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        guard let first = words.first else { return nil }
        var result = lowerLeadingCapitals(first)
        for word in words.dropFirst() {
            result += word.prefix(1).uppercased() + word.dropFirst()
        }
        if let start = result.unicodeScalars.first, start.properties.numericType != nil || ("0"..."9").contains(start) {
            result = "_" + result
        }
        return result
    }

    /// Whether `name` can be declared as it is (once back-quoted if it is a keyword): a
    /// letter or `_` and then letters, digits and `_`, and not `_` alone.
    package static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name != "_" else { return false }
        guard first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isWordScalar($0) }
    }

    /// `name` as it must be written in a declaration: back-quoted when it is a keyword.
    package static func declared(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Letters and digits: what a word of a key name is made of.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
    }

    /// `URLScheme` → `urlScheme`, `Volume` → `volume`, `ID` → `id`: a run of capitals is
    /// lowered except the last one when a lowercase letter follows it (it starts the next
    /// word).
    static func lowerLeadingCapitals(_ word: String) -> String {
        let characters = Array(word)
        var end = 0
        while end < characters.count, characters[end].isUppercase { end += 1 }
        if end == 0 { return word }
        if end > 1, end < characters.count, characters[end].isLowercase { end -= 1 }
        return String(characters[..<end]).lowercased() + String(characters[end...])
    }

    /// The words that must be back-quoted to be used as a member's name.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case",
        "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Type", "Protocol",
    ]
}
