import Foundation
package import PropertyList

/// Property-list text as people type it on a command line or in a file: old-style
/// (`{ a = 1; b = (x, y); }`), XML documents and fragments (`<integer>5</integer>`), and,
/// for files, binary.
package enum PropertyListText {
    /// The value of an untyped command-line argument.
    ///
    /// Text that starts like a property list (`{`, `(`, `<`, a quote) must be one, or this
    /// throws; any other text is the string it is, as on Apple's systems (`hello world`).
    package static func value(of text: String) throws(DefaultsFailure) -> PropertyListValue {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = trimmed.first else { return .string(text) }
        switch first {
        case "<":
            // XML, or old-style data (`<0fbd 7788>`), by the rule every reader uses.
            if PropertyListFormat.detect(text.utf8) == .xml {
                return try decodeXML(Array(text.utf8), what: "malformed XML property list \(quoted(text))", hint: stringHint)
            }
            return try decodeOpenStep(text, hint: stringHint)
        case "{", "(", "\"", "'":
            return try decodeOpenStep(text, hint: stringHint)
        default:
            return .string(text)
        }
    }

    /// A whole file or standard input: binary, XML or old-style text, by how it begins
    /// (``PropertyListFormat/detect(_:)``, as the library reads files in any format).
    package static func document(_ bytes: [UInt8], source: String) throws(DefaultsFailure) -> PropertyListValue {
        switch PropertyListFormat.detect(bytes) {
        case .binary:
            do throws(PropertyListError) {
                return try BinaryPropertyListDecoder().decode(bytes)
            } catch {
                throw DefaultsFailure("\(source) is not a valid binary property list: \(error)")
            }
        case .xml:
            return try decodeXML(bytes, what: "\(source) is not a valid XML property list")
        case .openStep:
            break
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw DefaultsFailure("\(source) is not a property list: it is neither binary, XML nor UTF-8 text")
        }
        do throws(PropertyListError) {
            return try OpenStepPropertyListDecoder().decode(string)
        } catch {
            throw DefaultsFailure("\(source) is not a valid property list: \(error)")
        }
    }

    /// Text that starts like a property list but is not one may have been meant as a string.
    private static let stringHint = "Hint: to store the text itself, put -string before it"

    private static func decodeXML(_ bytes: [UInt8], what: String, hint: String? = nil) throws(DefaultsFailure) -> PropertyListValue {
        do throws(PropertyListError) {
            return try XMLPropertyListDecoder().decode(bytes)
        } catch {
            throw DefaultsFailure("\(what): \(error)", usage: hint)
        }
    }

    private static func decodeOpenStep(_ text: String, hint: String? = nil) throws(DefaultsFailure) -> PropertyListValue {
        do throws(PropertyListError) {
            return try OpenStepPropertyListDecoder().decode(text)
        } catch {
            throw DefaultsFailure("malformed property list \(quoted(text)): \(error)", usage: hint)
        }
    }

    /// Text in single quotes, shortened when long, for messages.
    static func quoted(_ text: String) -> String {
        text.count > 60 ? "'\(text.prefix(57))...'" : "'\(text)'"
    }
}
