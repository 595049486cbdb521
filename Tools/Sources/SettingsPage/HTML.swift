/// Text made safe for HTML: everything the pages print from a file, a schema or a request
/// goes through here, so a key or value written by anyone cannot become markup.
enum HTML {
    /// `text` escaped for an element's content or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// ` name="value"`, escaped; nil leaves the attribute out.
    static func attribute(_ name: String, _ value: String?) -> String {
        guard let value else { return "" }
        return " \(name)=\"\(escape(value))\""
    }

    /// ` name` when `present`.
    static func flag(_ name: String, _ present: Bool) -> String {
        present ? " \(name)" : ""
    }

    /// A path segment of a URL: everything but unreserved characters percent-encoded.
    static func pathSegment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// An element id for a key's control: stable across renders (the live updates match
    /// elements by it) and valid whatever the key holds.
    static func id(_ prefix: String, _ key: String, _ suffix: String = "") -> String {
        var id = prefix + "-"
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                id.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                id += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return id + suffix
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
