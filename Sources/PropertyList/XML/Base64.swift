/// Base64 as XML property lists hold data: written in Apple's line layout, read strictly.
///
/// Our own rather than Foundation's so that a bad byte is reported with its position and
/// so that the line layout matches Apple's writer byte for byte.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Why base64 text could not be decoded, and at which byte of it.
    struct Failure: Error {
        /// The index in the text of the offending byte.
        let index: Int
        /// What was wrong there.
        let reason: String
    }

    /// Appends `bytes` encoded in lines of `lineLength` characters (a multiple of 4), each
    /// line preceded by `tabs` tab characters and followed by a newline. An empty input
    /// appends nothing.
    static func appendLines(of bytes: some Collection<UInt8>, tabs: Int, lineLength: Int, to output: inout [UInt8]) {
        var lineUsed = 0
        var iterator = bytes.makeIterator()
        func startLineIfNeeded() {
            if lineUsed == 0 {
                output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: tabs))
            }
        }
        while let first = iterator.next() {
            startLineIfNeeded()
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 0x3F)])
            output.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 0x3F)])
            lineUsed += 4
            if lineUsed >= lineLength || third == nil {
                output.append(UInt8(ascii: "\n"))
                lineUsed = 0
            }
        }
        if lineUsed > 0 {
            output.append(UInt8(ascii: "\n"))
        }
    }

    /// Decodes base64 text. Whitespace (space, tab, newline, carriage return) may appear
    /// anywhere; the other characters must be groups of four from the base64 alphabet, the
    /// last group padded with one or two `=`, nothing but whitespace after the padding.
    static func decode(_ text: some Collection<UInt8>) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var inGroup = 0
        var padding = 0
        for (index, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "="):
                guard inGroup >= 2, padding + inGroup < 4 else {
                    throw Failure(index: index, reason: "'=' padding where a base64 digit belongs")
                }
                padding += 1
                if padding + inGroup == 4 {
                    // 2 digits and 2 pads hold one byte; 3 digits and 1 pad hold two.
                    output.append(UInt8(truncatingIfNeeded: group >> (inGroup == 2 ? 4 : 10)))
                    if inGroup == 3 {
                        output.append(UInt8(truncatingIfNeeded: group >> 2))
                    }
                    inGroup = 4
                }
            default:
                guard padding == 0 else {
                    throw Failure(index: index, reason: "base64 digits after the '=' padding")
                }
                guard let value = digitValue(byte) else {
                    throw Failure(index: index, reason: "\(describe(byte)) is not a base64 digit")
                }
                group = group << 6 | UInt32(value)
                inGroup += 1
                if inGroup == 4 {
                    output.append(UInt8(truncatingIfNeeded: group >> 16))
                    output.append(UInt8(truncatingIfNeeded: group >> 8))
                    output.append(UInt8(truncatingIfNeeded: group))
                    group = 0
                    inGroup = 0
                }
            }
        }
        guard inGroup == 0 || (padding > 0 && inGroup == 4) else {
            throw Failure(index: text.count, reason: "the base64 text ends inside a group of four characters")
        }
        return output
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Unicode.Scalar(byte))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
