import DefaultsCommand

/// The addresses of the pages, their names percent-encoded.
enum PagePath {
    /// The address of a domain's page.
    static func domain(_ name: String) -> String {
        "/domains/" + segment(name)
    }

    /// The address of pane `file` of a domain's page.
    static func pane(_ file: String, ofDomain name: String) -> String {
        domain(name) + "/panes/" + segment(file)
    }

    /// A path segment of a URL: everything but unreserved characters percent-encoded.
    static func segment(_ text: String) -> String {
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
}
