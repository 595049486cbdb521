/// Decodes old-style (OpenStep, NeXT) text property lists: what `defaults write domain key
/// '{ a = 1; b = (x, y); }'` and launch arguments such as `-Key '(a, b)'` are written in.
///
/// The grammar, as Apple's parser reads it:
/// - dictionaries `{ key = value; ... }`, the last `;` optional; keys are strings;
/// - arrays `( a, b )`, a trailing comma allowed;
/// - data `<0fbd 77a0>`: hexadecimal digits, whitespace anywhere between them, an even count;
/// - quoted strings `"..."` and `'...'` with the escapes `\a \b \f \n \r \t \v \" \' \\`,
///   octal `\NNN` (up to three digits, at most `\377`, read as U+0000...U+00FF) and
///   `\UXXXX` (one to four hex digits of UTF-16; a surrogate pair written as two escapes is
///   combined); any other escaped character stands for itself;
/// - unquoted strings of `A-Z a-z 0-9 _ $ + / : . -`;
/// - `//` line comments and `/* */` block comments between tokens.
///
/// Every scalar is a string: the format has no numbers, booleans or dates, and `1` decodes
/// as the string `"1"`, as it does on Apple's platforms.
///
/// The decoder is bounded: containers nest at most ``limits``' depth (64 by default), the
/// text holds at most its expanded-object count of values (keys included; 100,000 by
/// default), and text longer than ``maximumInputLength`` (16 MiB) is refused unread. It
/// recurses only once per open container, so 100,000 nested `(` fail at the depth limit
/// instead of exhausting the stack. Anything after the top-level value other than
/// whitespace and comments is an error. Every failure is a ``PropertyListError`` with the
/// byte offset, its reason ending with the line and column, for example `expected ';' after
/// the value of key "b" at line 1, column 12`.
///
/// One deliberate difference from Apple: octal escapes above `\177` are read as Latin-1
/// (U+0080...U+00FF), where Apple maps them through the NeXTSTEP character set.
public struct OpenStepPropertyListDecoder: Sendable {
    /// The longest text, in UTF-8 bytes, the decoder reads: 16 MiB, far beyond any
    /// preference value, small enough that parsing it is quick and its copy affordable.
    public static let maximumInputLength = 16 * 1024 * 1024

    /// The bounds every decoded text is held to (depth and expanded-object count).
    public var limits: PropertyListLimits

    /// Creates a decoder with the given limits (the defaults unless tightened).
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes one old-style property-list value from text.
    public func decode(_ text: String) throws(PropertyListError) -> PropertyListValue {
        var text = text
        let length = text.utf8.count
        guard length <= Self.maximumInputLength else {
            throw PropertyListError(
                .inputTooLarge, at: Self.maximumInputLength,
                "the text is \(length) bytes, more than the \(Self.maximumInputLength)-byte (16 MiB) limit")
        }
        let limits = self.limits
        return try text.withUTF8 { utf8 in
            Result { () throws(PropertyListError) in
                var parser = OpenStepPropertyListParser(bytes: UnsafeRawBufferPointer(utf8), limits: limits)
                return try parser.parseDocument()
            }
        }.get()
    }
}
