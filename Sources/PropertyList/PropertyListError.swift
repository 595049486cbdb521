/// Why a property list could not be read or written, and where.
///
/// Every failure of the codec is one of these: hostile or damaged input never traps.
/// ``offset`` is the byte in the input the problem was found at, when there is one, and
/// ``description`` says in words what was wrong there.
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for code to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ name: String) { description = name }

        /// The input ends before the structure it describes.
        public static let truncated = Code("truncated")
        /// The input does not start with `bplist00`.
        public static let badMagic = Code("badMagic")
        /// A trailer field (widths, object count, top object, table offset) is out of range.
        public static let invalidTrailer = Code("invalidTrailer")
        /// An offset-table entry points outside the object area.
        public static let invalidOffset = Code("invalidOffset")
        /// An object reference names an object that does not exist.
        public static let invalidReference = Code("invalidReference")
        /// A count or length reaches past the object area.
        public static let invalidLength = Code("invalidLength")
        /// An object's marker byte is not one the format defines.
        public static let invalidMarker = Code("invalidMarker")
        /// A valid object of a type preferences do not hold (null, UID, set, fill).
        public static let unsupportedType = Code("unsupportedType")
        /// A string's bytes are not valid in its encoding (ASCII, UTF-8 or UTF-16), or an
        /// escape in a text property list names an unpaired UTF-16 surrogate.
        public static let invalidString = Code("invalidString")
        /// A dictionary key is not a string.
        public static let invalidKey = Code("invalidKey")
        /// An integer does not fit in `Int64.min ... UInt64.max`.
        public static let integerOutOfRange = Code("integerOutOfRange")
        /// A container contains itself.
        public static let cycle = Code("cycle")
        /// Containers nest deeper than the limit.
        public static let tooDeep = Code("tooDeep")
        /// The file holds more objects than the limit.
        public static let tooManyObjects = Code("tooManyObjects")
        /// Shared references expand to more objects than the limit.
        public static let tooManyExpandedObjects = Code("tooManyExpandedObjects")
        /// A text property list does not follow its grammar: an unexpected character, a
        /// missing separator, a malformed or mismatched tag, an unknown element.
        public static let syntax = Code("syntax")
        /// A text property list is longer than its decoder's input cap; it is refused before
        /// any of it is parsed.
        public static let inputTooLarge = Code("inputTooLarge")
        /// Something other than whitespace or comments follows the top-level value.
        public static let trailingContent = Code("trailingContent")
        /// The text is not UTF-8 (a UTF-16 or UTF-32 byte order mark, or a declared encoding
        /// the decoder does not read).
        public static let unsupportedEncoding = Code("unsupportedEncoding")
        /// An XML document type declaration declares entities. Entity expansion is how
        /// "billion laughs" and external-entity attacks work, so such documents are refused
        /// rather than processed.
        public static let entityDeclaration = Code("entityDeclaration")
        /// An XML entity or character reference is not one of the five predefined entities
        /// or does not name a Unicode scalar value.
        public static let invalidEntity = Code("invalidEntity")
        /// The text of an integer or real is not a number of that kind.
        public static let invalidNumber = Code("invalidNumber")
        /// The text of a date is not a valid ISO 8601 UTC date.
        public static let invalidDate = Code("invalidDate")
        /// The text of data is not valid base64 (XML) or hexadecimal (OpenStep).
        public static let invalidData = Code("invalidData")
    }

    /// The kind of failure.
    public let code: Code
    /// The byte offset in the input where the problem was found, if it has one.
    public let offset: Int?
    /// What was wrong, in words.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, at offset: Int? = nil, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// The reason, with its byte offset.
    public var description: String {
        if let offset { "\(reason) (at byte \(offset))" } else { reason }
    }
}
