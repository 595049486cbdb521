/// The constants of Apple's `bplist00` format, in one place for the reader and writer.
///
/// A file is an 8-byte header, the objects, a table of each object's byte offset, and a
/// 32-byte trailer: 6 unused bytes, the width of an offset-table entry, the width of an
/// object reference, the object count, the top object's number and the table's offset.
enum BinaryPropertyListFormat {
    static let magic: [UInt8] = Array("bplist".utf8)
    static let version: [UInt8] = Array("00".utf8)
    static let headerLength = 8
    static let trailerLength = 32

    /// Marker bytes: the high nibble is the type, the low nibble a size or subtype.
    enum Marker {
        static let null: UInt8 = 0x00
        static let `false`: UInt8 = 0x08
        static let `true`: UInt8 = 0x09
        static let fill: UInt8 = 0x0F
        static let integer: UInt8 = 0x10
        static let real: UInt8 = 0x20
        static let float32: UInt8 = 0x22
        static let float64: UInt8 = 0x23
        static let date: UInt8 = 0x33
        static let data: UInt8 = 0x40
        static let asciiString: UInt8 = 0x50
        static let utf16String: UInt8 = 0x60
        static let uid: UInt8 = 0x80
        static let array: UInt8 = 0xA0
        static let set: UInt8 = 0xC0
        static let dictionary: UInt8 = 0xD0
        /// A low nibble of 0xF means the count follows as an integer object.
        static let countFollows: UInt8 = 0x0F
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `value` unsigned, as Apple's writer
    /// chooses widths for offsets and references.
    static func width(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }
}
