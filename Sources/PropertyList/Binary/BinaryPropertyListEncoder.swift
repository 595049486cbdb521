#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes ``PropertyListValue``s in Apple's binary property-list format (`bplist00`).
///
/// The output is compact and deterministic: integers, offsets and references use the
/// fewest bytes that hold them; identical strings, numbers, dates and data are written
/// once and shared; dictionary keys are written in sorted order, so equal values always
/// encode to equal bytes. The encoder refuses values that the default decoder would
/// refuse to read back (too deep, too many objects), so it never writes a file that this
/// library cannot open.
public struct BinaryPropertyListEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes a value as a complete `bplist00` file.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var flattener = ObjectFlattener()
        _ = try flattener.add(value, depth: 0)
        return BinaryPropertyListWriter(objects: flattener.objects, estimatedSize: flattener.estimatedSize).write()
    }
}

/// One object of the file, its children named by object number.
private enum FlatObject {
    case scalar(PropertyListValue)
    case array([Int])
    case dictionary(keys: [Int], values: [Int])
}

/// A scalar's identity for sharing: exact bits and bytes, so `0.0` and `-0.0`, or two
/// canonically equivalent but differently spelled strings, stay distinct objects.
private enum ScalarIdentity: Hashable {
    case bool(Bool)
    case integer(PropertyListInteger)
    case float(UInt32)
    case double(UInt64)
    case date(UInt64)
    case data(Data)
    case string(ExactString)
}

/// A string compared and hashed by its UTF-8 bytes rather than by canonical equivalence.
///
/// The hash is computed once: the sharing table probes several buckets per insertion and
/// compares keys at each, so a stored hash turns most comparisons into one integer check.
private struct ExactString: Hashable {
    let string: String
    private let bytesHash: Int

    init(_ string: String) {
        self.string = string
        var hasher = Hasher()
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        bytesHash = hasher.finalize()
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        guard lhs.bytesHash == rhs.bytesHash else { return false }
        var left = lhs.string
        var right = rhs.string
        return left.withUTF8 { a in right.withUTF8 { b in a.count == b.count && a.elementsEqual(b) } }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }

    /// Orders by UTF-8 bytes, which is Unicode code point order (as CPython's plistlib
    /// sorts keys) and much cheaper than `String`'s canonical comparison.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs
        var right = rhs
        return left.withUTF8 { a in right.withUTF8 { b in a.lexicographicallyPrecedes(b) } }
    }
}

/// Walks a value tree into a flat object list, sharing identical scalars and enforcing
/// the decoder's default limits.
private struct ObjectFlattener {
    var objects: [FlatObject] = []
    /// An upper bound on the encoded size (before the offset table), so the writer
    /// allocates its output once instead of doubling it through a megabyte.
    private(set) var estimatedSize = 64
    private var shared: [ScalarIdentity: Int] = [:]
    private var expandedCount = 0

    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        expandedCount += 1
        guard expandedCount <= PropertyListLimits.maximumExpandedObjectCount else {
            throw PropertyListError(
                .tooManyExpandedObjects,
                "the value holds more than \(PropertyListLimits.maximumExpandedObjectCount) values, more than a decoder accepts")
        }
        let identity: ScalarIdentity
        switch value {
        case .array(let elements):
            let index = try reserve(depth: depth)
            reserve(additional: elements.count)
            var children: [Int] = []
            children.reserveCapacity(elements.count)
            for element in elements {
                children.append(try add(element, depth: depth + 1))
            }
            objects[index] = .array(children)
            estimatedSize += 10 + 4 * children.count
            return index
        case .dictionary(let entries):
            let index = try reserve(depth: depth)
            let sorted = Self.sortedByKey(entries)
            reserve(additional: 2 * sorted.count)
            var keys: [Int] = []
            var values: [Int] = []
            keys.reserveCapacity(sorted.count)
            values.reserveCapacity(sorted.count)
            for (key, _) in sorted {
                keys.append(try add(.string(key), depth: depth + 1))
            }
            for (_, value) in sorted {
                values.append(try add(value, depth: depth + 1))
            }
            objects[index] = .dictionary(keys: keys, values: values)
            estimatedSize += 10 + 8 * keys.count
            return index
        case .bool(let bool): identity = .bool(bool)
        case .integer(let integer): identity = .integer(integer)
        case .float(let float): identity = .float(float.bitPattern)
        case .double(let double): identity = .double(double.bitPattern)
        case .date(let date): identity = .date(date.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let data): identity = .data(data)
        case .string(let string): identity = .string(ExactString(string))
        }
        if let existing = shared[identity] {
            return existing
        }
        try checkObjectCount()
        objects.append(.scalar(value))
        shared[identity] = objects.count - 1
        switch value {
        case .string(let string): estimatedSize += 10 + 2 * string.utf8.count
        case .data(let data): estimatedSize += 10 + data.count
        default: estimatedSize += 17
        }
        return objects.count - 1
    }

    /// The entries in UTF-8 byte order of their keys.
    ///
    /// Copies every key's bytes into one buffer and sorts plain indices, comparing with
    /// `memcmp`: sorting the `(String, PropertyListValue)` pairs themselves costs a retain
    /// and release per move and per comparison, and made sorting most of the encoding time.
    private static func sortedByKey(_ entries: [String: PropertyListValue]) -> [(key: String, value: PropertyListValue)] {
        let pairs = Array(entries)
        var bytes: [UInt8] = []
        var spans: [(start: Int, count: Int)] = []
        spans.reserveCapacity(pairs.count)
        for pair in pairs {
            var key = pair.key
            key.withUTF8 { utf8 in
                spans.append((bytes.count, utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }
        var order = Array(pairs.indices)
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress
            order.sort { a, b in
                let (left, right) = (spans[a], spans[b])
                let common = min(left.count, right.count)
                if common > 0, let base {
                    let difference = compareBytes(base + left.start, base + right.start, count: common)
                    if difference != 0 { return difference < 0 }
                }
                return left.count < right.count
            }
        }
        return order.map { pairs[$0] }
    }

    /// Grows the tables ahead of a container's children, so they are not rehashed
    /// repeatedly as a large dictionary is walked.
    /// Growth stays geometric: reserving exactly what each small container needs would
    /// reallocate the tables for every one of them.
    private mutating func reserve(additional: Int) {
        let needed = objects.count + additional
        if needed > objects.capacity {
            objects.reserveCapacity(max(needed, 2 * objects.capacity))
        }
        if shared.count + additional > shared.capacity {
            shared.reserveCapacity(max(shared.count + additional, 2 * shared.capacity))
        }
    }

    /// Appends a placeholder for a container, whose children are added after it.
    private mutating func reserve(depth: Int) throws(PropertyListError) -> Int {
        guard depth < PropertyListLimits.maximumDepth else {
            throw PropertyListError(
                .tooDeep, "the value nests more than \(PropertyListLimits.maximumDepth) containers, more than a decoder accepts")
        }
        try checkObjectCount()
        objects.append(.array([]))
        return objects.count - 1
    }

    private func checkObjectCount() throws(PropertyListError) {
        guard objects.count < PropertyListLimits.maximumObjectCount else {
            throw PropertyListError(
                .tooManyObjects,
                "the value needs more than \(PropertyListLimits.maximumObjectCount) distinct objects, more than a decoder accepts")
        }
    }
}

/// Lays a flat object list out as bytes: header, objects, offset table, trailer.
private struct BinaryPropertyListWriter {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    let objects: [FlatObject]
    private let referenceWidth: Int
    private var output: [UInt8] = []

    private let estimatedSize: Int

    init(objects: [FlatObject], estimatedSize: Int) {
        self.objects = objects
        self.estimatedSize = estimatedSize
        referenceWidth = Format.width(for: UInt64(objects.count - 1))
    }

    consuming func write() -> [UInt8] {
        output.reserveCapacity(estimatedSize + objects.count * (referenceWidth + 8) + 40)
        output.append(contentsOf: Format.magic)
        output.append(contentsOf: Format.version)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            switch object {
            case .scalar(let value): append(value)
            case .array(let children):
                appendHeader(Marker.array, count: children.count)
                for child in children { appendBigEndian(UInt64(child), width: referenceWidth) }
            case .dictionary(let keys, let values):
                appendHeader(Marker.dictionary, count: keys.count)
                for key in keys { appendBigEndian(UInt64(key), width: referenceWidth) }
                for value in values { appendBigEndian(UInt64(value), width: referenceWidth) }
            }
        }
        let tableOffset = output.count
        let offsetWidth = Format.width(for: UInt64(offsets.last ?? 0))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetWidth) }
        output.append(contentsOf: repeatElement(0, count: 6))
        output.append(UInt8(offsetWidth))
        output.append(UInt8(referenceWidth))
        appendBigEndian(UInt64(objects.count), width: 8)
        appendBigEndian(0, width: 8)
        appendBigEndian(UInt64(tableOffset), width: 8)
        return output
    }

    private mutating func append(_ value: PropertyListValue) {
        switch value {
        case .bool(let bool):
            output.append(bool ? Marker.true : Marker.false)
        case .integer(let integer):
            appendInteger(integer)
        case .float(let float):
            output.append(Marker.float32)
            appendBigEndian(UInt64(float.bitPattern), width: 4)
        case .double(let double):
            output.append(Marker.float64)
            appendBigEndian(double.bitPattern, width: 8)
        case .date(let date):
            output.append(Marker.date)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8)
        case .data(let data):
            appendHeader(Marker.data, count: data.count)
            output.append(contentsOf: data)
        case .string(var string):
            let isASCII = string.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } }
            if isASCII {
                string.withUTF8 { utf8 in
                    appendHeader(Marker.asciiString, count: utf8.count)
                    output.append(contentsOf: utf8)
                }
            } else {
                appendHeader(Marker.utf16String, count: string.utf16.count)
                for unit in string.utf16 {
                    output.append(UInt8(unit >> 8))
                    output.append(UInt8(unit & 0xFF))
                }
            }
        case .array, .dictionary:
            preconditionFailure("containers are flattened before writing")
        }
    }

    /// Writes an integer in the fewest bytes: 1, 2 or 4 unsigned, 8 signed, or the 16-byte
    /// form for unsigned values above `Int64.max`.
    private mutating func appendInteger(_ integer: PropertyListInteger) {
        if let signed = integer.int64Value {
            if signed < 0 || signed > 0xFFFF_FFFF {
                output.append(Marker.integer | 3)
                appendBigEndian(UInt64(bitPattern: signed), width: 8)
            } else {
                let width = Format.width(for: UInt64(signed))
                output.append(Marker.integer | UInt8(width.trailingZeroBitCount))
                appendBigEndian(UInt64(signed), width: width)
            }
        } else {
            output.append(Marker.integer | 4)
            appendBigEndian(0, width: 8)
            appendBigEndian(integer.uint64Value!, width: 8)
        }
    }

    /// Writes a marker with its count: inline below 15, else as a following integer.
    private mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            output.append(marker | UInt8(count))
        } else {
            output.append(marker | Marker.countFollows)
            appendInteger(PropertyListInteger(count))
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
