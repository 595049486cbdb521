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
        /// A string's bytes are not valid ASCII or UTF-16.
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
