/// The three ways a property list is written down, and how to tell which one some bytes use.
public enum PropertyListFormat: Sendable, Hashable, CaseIterable {
    /// Apple's binary format (`bplist00`), which domain files use
    /// (``BinaryPropertyListDecoder``).
    case binary
    /// Apple's XML format, `<plist version="1.0">` or a bare value such as
    /// `<integer>5</integer>` (``XMLPropertyListDecoder``).
    case xml
    /// Old-style (OpenStep) text: `{ a = 1; b = (x, y); }` (``OpenStepPropertyListDecoder``).
    case openStep

    /// The format `bytes` are written in, told by how they begin; nothing is decoded, so bytes
    /// of the format named may still fail to decode.
    ///
    /// - **Binary**: the bytes start with `bplist`, with nothing before it.
    /// - **XML**: after an optional UTF-8 byte-order mark and white space (space, tab, line
    ///   feed, carriage return), a `<` that does not open an old-style data value: what
    ///   follows it up to the first `>` is not only hexadecimal digits and white space.
    ///   So `<?xml`, `<!DOCTYPE plist`, `<!--`, `<plist` and a bare value (`<dict>`,
    ///   `<false/>`) are XML, and `<0fbd 7788>` is old-style data.
    /// - **Old-style text**: anything else, the empty input included.
    ///
    /// The one rule for every reader of any format (``PropertyListValue/init(decodingAnyFormat:)``,
    /// the `defaults` tool's `import` and its command-line values), so a document reads as the
    /// same format wherever it is given.
    public static func detect(_ bytes: some Collection<UInt8>) -> PropertyListFormat {
        if bytes.starts(with: BinaryPropertyListFormat.magic) { return .binary }
        var rest = bytes[...]
        if rest.starts(with: byteOrderMark) { rest = rest.dropFirst(byteOrderMark.count) }
        rest = rest.drop(while: isWhiteSpace)
        guard rest.first == UInt8(ascii: "<") else { return .openStep }
        // Old-style data is the only old-style value that starts with `<`, and holds only
        // hexadecimal digits and white space. XML property lists never do: every element of
        // the format (`plist`, `dict`, `data`, `date`, `array`, `false`, …) and every
        // declaration, comment or processing instruction has another character before its
        // `>` (`<dict>`'s `i`, `<?xml`'s `?`). So this tells the two apart without decoding.
        let contents = rest.dropFirst().prefix { $0 != UInt8(ascii: ">") }
        return contents.allSatisfy { isWhiteSpace($0) || isHexadecimalDigit($0) } ? .openStep : .xml
    }

    /// The UTF-8 byte-order mark, which editors on some systems put at the start of a file.
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// XML's white space, which both text formats allow before the first value.
    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `0-9`, `a-f`, `A-F`: the digits of old-style data.
    private static func isHexadecimalDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
