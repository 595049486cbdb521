/// One decoding pass over one file: the parsed trailer and what has been decoded so far.
struct BinaryPropertyListReader {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    let bytes: UnsafeRawBufferPointer
    let limits: PropertyListLimits
    let offsetWidth: Int
    let referenceWidth: Int
    let objectCount: Int
    private let topObject: Int
    /// Objects lie in `headerLength ..< objectsEnd`; the offset table starts at `objectsEnd`.
    let objectsEnd: Int
    /// One bit per object: set while the object is being decoded, so a reference back to
    /// it is a cycle.
    var inProgress: [UInt64]
    /// One bit per object: set once it has been decoded (containers, and strings and data
    /// long enough to live on the heap), so a second reference to it is recognised.
    var isVisited: [UInt64]
    /// One bit per object: set once the object is in `shared`.
    var isShared: [UInt64]
    /// Objects decoded once and kept for further references, by object number: long
    /// strings and data (so a planted file cannot multiply a large string) and containers
    /// (so "billion laughs" costs linear time), each from its second reference on. A
    /// typical file references most objects once, so caching every long string on first
    /// sight cost a hash-table insertion per string, the largest single cost of decoding
    /// a domain of long values; decoding one object twice at most keeps the bound.
    var shared: [Int: SharedObject] = [:]
    /// The deepest container nesting reached so far, to learn a shared subtree's height.
    var deepest = 0
    var expandedCount = 0

    /// A decoded object kept for reuse, with what reusing it costs against the limits.
    struct SharedObject {
        var value: PropertyListValue
        /// Values in its expanded subtree, itself included.
        var size: Int
        /// Containers nested in it, itself included (0 for strings and data).
        var height: Int
    }

    init(bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) throws(PropertyListError) {
        self.bytes = bytes
        self.limits = limits
        let count = bytes.count
        guard count > 0 else {
            throw PropertyListError(.truncated, at: 0, "the input is empty")
        }
        guard count >= Format.headerLength else {
            throw PropertyListError(.truncated, at: count, "the input is \(count) bytes, shorter than the 8-byte header")
        }
        guard bytes.prefix(6).elementsEqual(Format.magic) else {
            throw PropertyListError(.badMagic, at: 0, "the input does not start with \"bplist\"")
        }
        guard bytes[6..<8].elementsEqual(Format.version) else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw PropertyListError(.badMagic, at: 6, "binary property list version \"\(version)\" is not supported (only \"00\")")
        }
        let minimum = Format.headerLength + 2 + Format.trailerLength
        guard count >= minimum else {
            throw PropertyListError(
                .truncated, at: count,
                "the input is \(count) bytes, too short for a header, an object, an offset table and the 32-byte trailer")
        }
        let trailer = count - Format.trailerLength
        offsetWidth = Int(bytes[trailer + 6])
        referenceWidth = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetWidth) else {
            throw PropertyListError(.invalidTrailer, at: trailer + 6, "offset table entry width \(offsetWidth) is not in 1...8")
        }
        guard (1...8).contains(referenceWidth) else {
            throw PropertyListError(.invalidTrailer, at: trailer + 7, "object reference width \(referenceWidth) is not in 1...8")
        }
        let declaredCount = Self.readUnsigned(bytes, at: trailer + 8, width: 8)
        let declaredTop = Self.readUnsigned(bytes, at: trailer + 16, width: 8)
        let declaredTable = Self.readUnsigned(bytes, at: trailer + 24, width: 8)
        guard declaredCount > 0 else {
            throw PropertyListError(.invalidTrailer, at: trailer + 8, "the trailer declares 0 objects")
        }
        guard declaredCount <= UInt64(limits.objectCount) else {
            throw PropertyListError(
                .tooManyObjects, at: trailer + 8,
                "the trailer declares \(declaredCount) objects; the limit is \(limits.objectCount)")
        }
        guard referenceWidth >= 8 || declaredCount <= UInt64(1) << UInt64(8 * referenceWidth) else {
            throw PropertyListError(
                .invalidTrailer, at: trailer + 7,
                "\(declaredCount) objects cannot be told apart by \(referenceWidth)-byte references")
        }
        guard declaredTop < declaredCount else {
            throw PropertyListError(
                .invalidTrailer, at: trailer + 16,
                "the top object \(declaredTop) is not among the \(declaredCount) objects")
        }
        guard declaredTable > UInt64(Format.headerLength) else {
            throw PropertyListError(
                .invalidTrailer, at: trailer + 24,
                "the offset table at byte \(declaredTable) leaves no room for objects after the header")
        }
        // declaredCount is at most 65,536 and the width at most 8, so this cannot overflow.
        let tableLength = declaredCount * UInt64(offsetWidth)
        guard declaredTable <= UInt64(trailer), tableLength <= UInt64(trailer) - declaredTable else {
            throw PropertyListError(
                .invalidTrailer, at: trailer + 24,
                "the offset table at byte \(declaredTable) with \(declaredCount) entries of \(offsetWidth) bytes "
                    + "runs past the trailer at byte \(trailer)")
        }
        objectCount = Int(declaredCount)
        topObject = Int(declaredTop)
        objectsEnd = Int(declaredTable)
        inProgress = Array(repeating: 0, count: (objectCount + 63) / 64)
        isShared = inProgress
        isVisited = inProgress
    }

    mutating func readTopObject() throws(PropertyListError) -> PropertyListValue {
        try value(at: topObject, depth: 0)
    }
}
