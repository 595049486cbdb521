#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decodes Apple's binary property-list format (`bplist00`) into ``PropertyListValue``s.
///
/// Safe on hostile input: every count, offset, width and reference is checked against
/// the file before it is used; nesting, the object count and the expansion of shared
/// references are bounded by ``limits``; cycles are rejected. Any failure is a
/// ``PropertyListError`` naming the reason and the byte offset; none traps.
public struct BinaryPropertyListDecoder: Sendable {
    /// The bounds every decoded file is held to.
    public var limits: PropertyListLimits

    /// Creates a decoder with the given limits (the defaults unless tightened).
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes a binary property list from raw bytes.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        var reader = try BinaryPropertyListReader(bytes: bytes, limits: limits)
        return try reader.readTopObject()
    }

    /// Decodes a binary property list from an array of bytes.
    public func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }

    /// Decodes a binary property list from `Data`.
    public func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }
}

/// One decoding pass over one file: the parsed trailer and what has been decoded so far.
private struct BinaryPropertyListReader {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    private let bytes: UnsafeRawBufferPointer
    private let limits: PropertyListLimits
    private let offsetWidth: Int
    private let referenceWidth: Int
    private let objectCount: Int
    private let topObject: Int
    /// Objects lie in `headerLength ..< objectsEnd`; the offset table starts at `objectsEnd`.
    private let objectsEnd: Int
    /// One bit per object: set while the object is being decoded, so a reference back to
    /// it is a cycle.
    private var inProgress: [UInt64]
    /// One bit per object: set once it has been decoded (containers, and strings and data
    /// long enough to live on the heap), so a second reference to it is recognised.
    private var isVisited: [UInt64]
    /// One bit per object: set once the object is in `shared`.
    private var isShared: [UInt64]
    /// Objects decoded once and kept for further references, by object number: long
    /// strings and data (so a planted file cannot multiply a large string) and containers
    /// (so "billion laughs" costs linear time), each from its second reference on. A
    /// typical file references most objects once, so caching every long string on first
    /// sight cost a hash-table insertion per string, the largest single cost of decoding
    /// a domain of long values; decoding one object twice at most keeps the bound.
    private var shared: [Int: SharedObject] = [:]
    /// The deepest container nesting reached so far, to learn a shared subtree's height.
    private var deepest = 0
    private var expandedCount = 0

    /// A decoded object kept for reuse, with what reusing it costs against the limits.
    private struct SharedObject {
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

    // MARK: Objects

    /// Decodes object `index`, found inside `depth` enclosing containers.
    private mutating func value(at index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
        if isShared[word] & bit != 0, let reused = shared[index] {
            try countExpanded(reused.size, object: index)
            guard depth + reused.height <= limits.depth else {
                throw PropertyListError(
                    .tooDeep, at: try offset(of: index),
                    "object \(index) nests containers deeper than \(limits.depth) where it is shared")
            }
            deepest = max(deepest, depth + reused.height)
            return reused.value
        }
        if inProgress[word] & bit != 0 {
            throw PropertyListError(.cycle, at: try offset(of: index), "object \(index) contains itself")
        }
        let offset = try offset(of: index)
        let marker = bytes[offset]
        let value: PropertyListValue
        switch marker & 0xF0 {
        case 0x00:
            try countExpanded(1, object: index)
            switch marker {
            case Marker.false: value = .bool(false)
            case Marker.true: value = .bool(true)
            case Marker.null: throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a null, which property lists cannot hold")
            case Marker.fill: throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a fill byte, not a value")
            default: throw Self.badMarker(marker, object: index, at: offset)
            }
        case Marker.integer:
            try countExpanded(1, object: index)
            value = .integer(try integer(marker: marker, object: index, at: offset))
        case Marker.real:
            try countExpanded(1, object: index)
            switch marker {
            case Marker.float32:
                try need(4, after: offset, for: "32-bit real", object: index)
                value = .float(Float(bitPattern: UInt32(Self.readUnsigned(bytes, at: offset + 1, width: 4))))
            case Marker.float64:
                try need(8, after: offset, for: "64-bit real", object: index)
                value = .double(Double(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8)))
            default:
                throw Self.badMarker(marker, object: index, at: offset)
            }
        case 0x30:
            try countExpanded(1, object: index)
            guard marker == Marker.date else { throw Self.badMarker(marker, object: index, at: offset) }
            try need(8, after: offset, for: "date", object: index)
            let seconds = Double(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8))
            // A NaN date is no moment at all: it never equals itself (so every reload would
            // look like a change) and Foundation's `Date.description` traps on it.
            guard !seconds.isNaN else {
                throw PropertyListError(.invalidDate, at: offset, "object \(index) is a date whose time is NaN (not a number)")
            }
            value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case Marker.data:
            try countExpanded(1, object: index)
            let (length, start) = try count(marker: marker, object: index, at: offset, elementWidth: 1, what: "data")
            value = .data(Data(bytes: bytes.baseAddress! + start, count: length))
        case Marker.asciiString:
            try countExpanded(1, object: index)
            value = .string(try asciiString(marker: marker, object: index, at: offset))
        case Marker.utf16String:
            try countExpanded(1, object: index)
            value = .string(try utf16String(marker: marker, object: index, at: offset))
        case Marker.uid:
            throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a keyed-archiver UID, which preferences cannot hold")
        case Marker.set:
            throw PropertyListError(.unsupportedType, at: offset, "object \(index) is a set, which property lists cannot hold")
        case Marker.array, Marker.dictionary:
            let (expandedBefore, deepestBefore) = (expandedCount, deepest)
            deepest = depth
            value = marker & 0xF0 == Marker.array
                ? try array(marker: marker, object: index, at: offset, depth: depth)
                : try dictionary(marker: marker, object: index, at: offset, depth: depth)
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: value, size: expandedCount - expandedBefore, height: deepest - depth)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
            deepest = max(deepest, deepestBefore)
            return value
        default:
            throw Self.badMarker(marker, object: index, at: offset)
        }
        // Strings and data of 16 bytes or more live on the heap: share them from their
        // second reference on. Shorter ones are stored inline and cost nothing to decode
        // again.
        if marker & 0x0F == Marker.countFollows,
            marker & 0xF0 == Marker.data || marker & 0xF0 == Marker.asciiString || marker & 0xF0 == Marker.utf16String
        {
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: value, size: 1, height: 0)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
        }
        return value
    }

    private mutating func array(marker: UInt8, object index: Int, at offset: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (count, start) = try beginContainer(marker: marker, object: index, at: offset, depth: depth, references: 1, what: "array")
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)
        for position in 0..<count {
            let child = try reference(at: start + position * referenceWidth, in: index)
            elements.append(try value(at: child, depth: depth + 1))
        }
        finishContainer(index)
        return .array(elements)
    }

    private mutating func dictionary(marker: UInt8, object index: Int, at offset: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let (count, start) = try beginContainer(marker: marker, object: index, at: offset, depth: depth, references: 2, what: "dictionary")
        var entries: [String: PropertyListValue] = Dictionary(minimumCapacity: count)
        let valuesStart = start + count * referenceWidth
        for position in 0..<count {
            let keyObject = try reference(at: start + position * referenceWidth, in: index)
            let keyOffset = try self.offset(of: keyObject)
            let keyType = bytes[keyOffset] & 0xF0
            guard keyType == Marker.asciiString || keyType == Marker.utf16String else {
                throw PropertyListError(
                    .invalidKey, at: keyOffset,
                    "dictionary object \(index) has key \(position) (object \(keyObject)) with marker "
                        + "\(Self.hex(bytes[keyOffset])), not a string")
            }
            let key = try key(at: keyObject, offset: keyOffset)
            let child = try reference(at: valuesStart + position * referenceWidth, in: index)
            entries[key] = try value(at: child, depth: depth + 1)
        }
        finishContainer(index)
        return .dictionary(entries)
    }

    /// Decodes key object `index`, whose marker at `offset` has been checked to be a
    /// string's: what `value(at:depth:)` does for a string, without its dispatch and
    /// without wrapping the string in a value only to unwrap it again, for the most
    /// frequent object of a domain. A string is never in progress, so there is no cycle to
    /// check, and it nests nothing, so reusing a shared one cannot deepen the tree.
    private mutating func key(at index: Int, offset: Int) throws(PropertyListError) -> String {
        let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
        if isShared[word] & bit != 0, let reused = shared[index], case .string(let string) = reused.value {
            try countExpanded(reused.size, object: index)
            return string
        }
        try countExpanded(1, object: index)
        let marker = bytes[offset]
        let string = marker & 0xF0 == Marker.asciiString
            ? try asciiString(marker: marker, object: index, at: offset)
            : try utf16String(marker: marker, object: index, at: offset)
        // Shared from the second reference on, as `value(at:depth:)` shares strings.
        if marker & 0x0F == Marker.countFollows {
            if isVisited[word] & bit != 0 {
                shared[index] = SharedObject(value: .string(string), size: 1, height: 0)
                isShared[word] |= bit
            }
            isVisited[word] |= bit
        }
        return string
    }

    /// Checks depth and length for a container, marks it in progress and counts it.
    private mutating func beginContainer(
        marker: UInt8, object index: Int, at offset: Int, depth: Int, references: Int, what: StaticString
    ) throws(PropertyListError) -> (count: Int, start: Int) {
        guard depth < limits.depth else {
            throw PropertyListError(.tooDeep, at: offset, "\(what) object \(index) nests deeper than \(limits.depth) containers")
        }
        let (count, start) = try count(
            marker: marker, object: index, at: offset, elementWidth: references * referenceWidth, what: what)
        inProgress[index >> 6] |= UInt64(1) << UInt64(index & 63)
        deepest = max(deepest, depth + 1)
        try countExpanded(1, object: index)
        return (count, start)
    }

    private mutating func finishContainer(_ index: Int) {
        inProgress[index >> 6] &= ~(UInt64(1) << UInt64(index & 63))
    }

    @inline(__always)
    private mutating func countExpanded(_ amount: Int, object index: Int) throws(PropertyListError) {
        expandedCount += amount
        guard expandedCount <= limits.expandedObjectCount else {
            throw PropertyListError(
                .tooManyExpandedObjects, at: try? offset(of: index),
                "shared references expand to more than \(limits.expandedObjectCount) values (reached at object \(index))")
        }
    }

    // MARK: Scalars

    private func integer(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> PropertyListInteger {
        let exponent = Int(marker & 0x0F)
        guard exponent <= 4 else {
            throw PropertyListError(.invalidMarker, at: offset, "integer object \(index) has marker \(Self.hex(marker)), a width of 2^\(exponent) bytes")
        }
        let width = 1 << exponent
        try need(width, after: offset, for: "\(width)-byte integer", object: index)
        switch width {
        case 1, 2, 4:
            return PropertyListInteger(Self.readUnsigned(bytes, at: offset + 1, width: width))
        case 8:
            return PropertyListInteger(Int64(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8)))
        default:
            let high = Self.readUnsigned(bytes, at: offset + 1, width: 8)
            let low = Self.readUnsigned(bytes, at: offset + 9, width: 8)
            if high == 0 { return PropertyListInteger(low) }
            if high == UInt64.max && low >= UInt64(1) << 63 { return PropertyListInteger(Int64(bitPattern: low)) }
            throw PropertyListError(
                .integerOutOfRange, at: offset, "16-byte integer object \(index) lies outside Int64.min...UInt64.max")
        }
    }

    private func asciiString(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> String {
        let (length, start) = try count(marker: marker, object: index, at: offset, elementWidth: 1, what: "ASCII string")
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
        if let bad = Self.firstNonASCII(slice) {
            throw PropertyListError(
                .invalidString, at: start + bad,
                "ASCII string object \(index) holds byte \(Self.hex(slice[bad])), which is not ASCII")
        }
        return String(decoding: slice, as: UTF8.self)
    }

    /// The position of the first byte of `slice` with its high bit set, if any.
    ///
    /// Tests eight bytes at a time: a byte-by-byte scan was the largest cost of decoding a
    /// domain of long ASCII strings.
    @inline(__always)
    private static func firstNonASCII(_ slice: UnsafeRawBufferPointer) -> Int? {
        guard let base = slice.baseAddress else { return nil }
        let count = slice.count
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var position = 0
        // 32 bytes per step while they last: most of a domain's bytes are in long strings.
        while position + 32 <= count {
            let any = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 8, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 16, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 24, as: UInt64.self)
            if any & highBits != 0 { break }
            position += 32
        }
        while position + 8 <= count {
            if base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & highBits != 0 { break }
            position += 8
        }
        while position < count {
            if base.load(fromByteOffset: position, as: UInt8.self) >= 0x80 { return position }
            position += 1
        }
        return nil
    }

    private func utf16String(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> String {
        let (units, start) = try count(marker: marker, object: index, at: offset, elementWidth: 2, what: "UTF-16 string")
        var failure: Int? = nil
        let bytes = self.bytes
        // Transcode big-endian UTF-16 straight to UTF-8, refusing unpaired surrogates.
        let string = String(unsafeUninitializedCapacity: units * 3) { out in
            var unit = 0
            var written = 0
            func read(_ i: Int) -> UInt32 {
                UInt32(bytes[start + 2 * i]) << 8 | UInt32(bytes[start + 2 * i + 1])
            }
            while unit < units {
                let first = read(unit)
                var scalar = first
                if (0xD800...0xDBFF).contains(first) {
                    guard unit + 1 < units, case let second = read(unit + 1), (0xDC00...0xDFFF).contains(second) else {
                        failure = unit
                        return 0
                    }
                    scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    unit += 1
                } else if (0xDC00...0xDFFF).contains(first) {
                    failure = unit
                    return 0
                }
                unit += 1
                switch scalar {
                case ..<0x80:
                    out[written] = UInt8(scalar)
                    written += 1
                case ..<0x800:
                    out[written] = UInt8(0xC0 | scalar >> 6)
                    out[written + 1] = UInt8(0x80 | scalar & 0x3F)
                    written += 2
                case ..<0x10000:
                    out[written] = UInt8(0xE0 | scalar >> 12)
                    out[written + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    out[written + 2] = UInt8(0x80 | scalar & 0x3F)
                    written += 3
                default:
                    out[written] = UInt8(0xF0 | scalar >> 18)
                    out[written + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    out[written + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    out[written + 3] = UInt8(0x80 | scalar & 0x3F)
                    written += 4
                }
            }
            return written
        }
        if let failure {
            throw PropertyListError(
                .invalidString, at: start + 2 * failure,
                "UTF-16 string object \(index) has an unpaired surrogate at code unit \(failure)")
        }
        return string
    }

    // MARK: Bounds

    /// The byte offset of object `index`, checked to lie in the object area.
    @inline(__always)
    private func offset(of index: Int) throws(PropertyListError) -> Int {
        let entry = objectsEnd + index * offsetWidth
        let offset = Self.readUnsigned(bytes, at: entry, width: offsetWidth)
        guard offset >= UInt64(Format.headerLength) else {
            throw PropertyListError(.invalidOffset, at: entry, "offset table entry \(index) points to byte \(offset), inside the header")
        }
        guard offset < UInt64(objectsEnd) else {
            let place = offset >= UInt64(bytes.count)
                ? "past the end of the file (\(bytes.count) bytes)"
                : "into the offset table or trailer (objects end at byte \(objectsEnd))"
            throw PropertyListError(.invalidOffset, at: entry, "offset table entry \(index) points to byte \(offset), \(place)")
        }
        return Int(offset)
    }

    /// Reads the object reference at `position`, checked to name an existing object.
    @inline(__always)
    private func reference(at position: Int, in container: Int) throws(PropertyListError) -> Int {
        let reference = Self.readUnsigned(bytes, at: position, width: referenceWidth)
        guard reference < UInt64(objectCount) else {
            throw PropertyListError(
                .invalidReference, at: position,
                "container object \(container) refers to object \(reference), but there are \(objectCount)")
        }
        return Int(reference)
    }

    /// Reads an object's element count (inline or as a following integer) and checks
    /// that `count * elementWidth` bytes follow inside the object area. `what` is static
    /// text, so passing it costs nothing on the path that does not throw.
    @inline(__always)
    private func count(
        marker: UInt8, object index: Int, at offset: Int, elementWidth: Int, what: StaticString
    ) throws(PropertyListError) -> (count: Int, start: Int) {
        var count = UInt64(marker & 0x0F)
        var start = offset + 1
        if marker & 0x0F == Marker.countFollows {
            try need(1, after: offset, for: "\(what) length", object: index)
            let lengthMarker = bytes[offset + 1]
            let exponent = Int(lengthMarker & 0x0F)
            guard lengthMarker & 0xF0 == Marker.integer, exponent <= 3 else {
                throw PropertyListError(
                    .invalidLength, at: offset + 1,
                    "\(what) object \(index) has a length marked \(Self.hex(lengthMarker)), not a 1-8 byte integer")
            }
            let width = 1 << exponent
            try need(1 + width, after: offset, for: "\(what) length", object: index)
            count = Self.readUnsigned(bytes, at: offset + 2, width: width)
            start = offset + 2 + width
        }
        let available = UInt64(objectsEnd - start)
        guard count <= available / UInt64(elementWidth) else {
            throw PropertyListError(
                .invalidLength, at: offset,
                "\(what) object \(index) claims \(count) elements of \(elementWidth) bytes, "
                    + "but only \(available) bytes remain before the offset table")
        }
        return (Int(count), start)
    }

    /// Checks that `length` bytes follow the marker at `offset` inside the object area.
    /// `what` is an autoclosure: building the description eagerly on every object cost
    /// more than the rest of decoding a number.
    @inline(__always)
    private func need(_ length: Int, after offset: Int, for what: @autoclosure () -> String, object index: Int) throws(PropertyListError) {
        guard length <= objectsEnd - offset - 1 else {
            throw PropertyListError(
                .invalidLength, at: offset, "\(what()) object \(index) needs \(length) bytes, past the object area's end")
        }
    }

    /// Reads a big-endian unsigned integer of `width` (1...8) bytes; the caller has checked
    /// that they lie inside `bytes`. The common widths are single loads: this runs for
    /// every offset-table entry and every reference.
    @inline(__always)
    private static func readUnsigned(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        let base = bytes.baseAddress.unsafelyUnwrapped
        switch width {
        case 1: return UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default: break
        }
        var result: UInt64 = 0
        for i in 0..<width {
            result = result << 8 | UInt64(bytes[offset + i])
        }
        return result
    }

    private static func badMarker(_ marker: UInt8, object index: Int, at offset: Int) -> PropertyListError {
        PropertyListError(.invalidMarker, at: offset, "object \(index) has marker \(hex(marker)), which the format does not define")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
