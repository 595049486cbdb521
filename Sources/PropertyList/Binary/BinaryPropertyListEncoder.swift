#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes ``PropertyListValue``s in Apple's binary property-list format (`bplist00`).
///
/// The output is compact and deterministic: integers, offsets and references use the
/// fewest bytes that hold them; identical values are written once and shared, containers
/// included, so a value that repeats one small array or dictionary many times stays
/// small; dictionary keys are written in sorted order, so equal values always encode to
/// equal bytes. The encoder refuses values that the default decoder would refuse to read
/// back (too deep, too many objects, too many values once shared references are
/// expanded), so it never writes a file that this library cannot open.
public struct BinaryPropertyListEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes a value as a complete `bplist00` file.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var flattener = ObjectFlattener()
        _ = try flattener.add(value, depth: 0)
        return BinaryPropertyListWriter(flattener: flattener).write()
    }
}

/// One object of the file, in the form the writer needs.
///
/// Containers name their children by a run of `ObjectFlattener.references` rather than by
/// arrays of their own, so flattening allocates nothing per container, and two containers
/// are identical exactly when their kinds and runs are; a string carries what writing it
/// takes, learnt while it was hashed.
private enum FlatObject {
    case bool(Bool)
    case integer(PropertyListInteger)
    case float(UInt32)
    case double(UInt64)
    case date(UInt64)
    case data(Data)
    case asciiString(String)
    /// A string with non-ASCII characters, written as `units` big-endian UTF-16 code units.
    case utf16String(String, units: Int)
    /// The children are `references[first ..< first + count]`.
    case array(first: Int, count: Int)
    /// The keys are `references[first ..< first + count]`, the values the `count` after them.
    case dictionary(first: Int, count: Int)
}

/// What an object is, mixed into its hash so that equal bits of different types (the
/// integer 1 and `true`, a string and data with the same bytes, an array and a dictionary
/// with the same run of references) rarely collide.
private enum ObjectKind: UInt8 {
    case bool, integer, largeInteger, float, double, date, data, string, array, dictionary
}

/// Walks a value tree into a flat object list, sharing identical objects and enforcing
/// the decoder's default limits.
///
/// Objects are numbered as they are first met: a container before its children, and a
/// dictionary's keys, in sorted order, before its values.
///
/// Every object is shared by value. A scalar is identical to another with the same kind
/// and bits or bytes. A container is identical to another of the same kind whose children
/// are, in order, the same objects (for a dictionary: the same keys, by UTF-8 bytes, with
/// identical values), which is looked up once its children have been added, from its run
/// of references. CPython's plistlib does less: it shares scalars by type and value, but
/// a list or dict only when the very same Python object recurs, so two equal lists built
/// apart are written twice; a `PropertyListValue` has no identity to go by, and sharing
/// by value also catches containers a caller built apart.
///
/// Sharing never makes a file harder to read: the decoder counts a shared subtree at
/// every reference, so the values it expands to are the values of the tree this walk
/// counts, held to the same limit; equal containers have equal height, so one shared
/// across depths nests no deeper than the copies it replaces; and a container cannot
/// equal one of its own ancestors, so sharing makes no cycle.
private struct ObjectFlattener {
    typealias Format = BinaryPropertyListFormat

    private(set) var objects: [FlatObject] = []
    /// Every container's children by object number, each container's a contiguous run.
    private(set) var references: [Int] = []
    /// The bytes the scalar objects take, markers and counts included.
    private(set) var scalarBytes = 0
    /// The objects added so far but the outermost container, found by a hash of a
    /// scalar's exact bits or bytes, or of a container's kind and run of references.
    private var table = UniquingTable()
    private var expandedCount = 0
    /// Scratch space for one dictionary's key bytes while they are sorted, reused by the
    /// next dictionary.
    private var keyBytes: [UInt8] = []

    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        try countExpanded()
        switch value {
        case .array(let elements):
            let index = try reserve(depth: depth)
            reserve(additional: elements.count)
            let first = references.count
            references.append(contentsOf: repeatElement(0, count: elements.count))
            var position = first
            for element in elements {
                let child = try add(element, depth: depth + 1)
                references[position] = child
                position += 1
            }
            return try finishContainer(.array, at: index, first: first, count: elements.count, depth: depth)
        case .dictionary(let entries):
            let index = try reserve(depth: depth)
            let (sorted, order) = sortedByKey(entries)
            reserve(additional: 2 * sorted.count)
            let first = references.count
            references.append(contentsOf: repeatElement(0, count: 2 * sorted.count))
            var position = first
            for entry in order {
                try countExpanded()
                let child = try addString(sorted[entry.entry].key)
                references[position] = child
                position += 1
            }
            for entry in order {
                let child = try add(sorted[entry.entry].value, depth: depth + 1)
                references[position] = child
                position += 1
            }
            return try finishContainer(.dictionary, at: index, first: first, count: sorted.count, depth: depth)
        case .string(let string):
            return try addString(string)
        case .data(let data):
            var hasher = Hasher()
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
            return try addScalar(.data(data), hash: hasher.finalize() ^ Int(ObjectKind.data.rawValue))
        case .bool(let bool):
            return try addScalar(.bool(bool), hash: Self.hash(.bool, bool ? 1 : 0))
        case .integer(let integer):
            let kind: ObjectKind = integer.isAboveInt64Max ? .largeInteger : .integer
            return try addScalar(.integer(integer), hash: Self.hash(kind, UInt64(bitPattern: integer.bits)))
        case .float(let float):
            return try addScalar(.float(float.bitPattern), hash: Self.hash(.float, UInt64(float.bitPattern)))
        case .double(let double):
            return try addScalar(.double(double.bitPattern), hash: Self.hash(.double, double.bitPattern))
        case .date(let date):
            let bits = date.timeIntervalSinceReferenceDate.bitPattern
            return try addScalar(.date(bits), hash: Self.hash(.date, bits))
        }
    }

    private mutating func countExpanded() throws(PropertyListError) {
        expandedCount += 1
        guard expandedCount <= PropertyListLimits.maximumExpandedObjectCount else {
            throw PropertyListError(
                .tooManyExpandedObjects,
                "the value holds more than \(PropertyListLimits.maximumExpandedObjectCount) values, more than a decoder accepts")
        }
    }

    /// A scalar's hash: its bits through the standard library's seeded hash of one word
    /// (cheaper than a `Hasher` fed field by field), its kind mixed in afterwards.
    @inline(__always)
    private static func hash(_ kind: ObjectKind, _ bits: UInt64) -> Int {
        bits.hashValue ^ Int(kind.rawValue)
    }

    /// Adds a string, or finds the one with the same UTF-8 bytes added before.
    private mutating func addString(_ string: String) throws(PropertyListError) -> Int {
        var string = string
        // One pass over the bytes hashes them; a second, only for a string not seen
        // before, learns how writing them takes.
        let hash = string.withUTF8 { utf8 in
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
            return hasher.finalize() ^ Int(ObjectKind.string.rawValue)
        }
        table.reserve(capacity: table.count + 1)
        var slot = table.home(of: hash)
        while let candidate = table.object(at: &slot, hash: hash) {
            switch objects[candidate] {
            case .asciiString(var other), .utf16String(var other, _):
                if Self.sameUTF8(&string, &other) { return candidate }
            default: break
            }
            slot = table.next(after: slot)
        }
        let (length, units) = string.withUTF8 { utf8 in (utf8.count, Self.utf16Count(utf8)) }
        if let units {
            return try insert(.utf16String(string, units: units), hash: hash, slot: slot, size: Self.headerSize(count: units) + 2 * units)
        }
        return try insert(.asciiString(string), hash: hash, slot: slot, size: Self.headerSize(count: length) + length)
    }

    /// Adds a scalar other than a string, or finds the identical one added before.
    private mutating func addScalar(_ object: FlatObject, hash: Int) throws(PropertyListError) -> Int {
        table.reserve(capacity: table.count + 1)
        var slot = table.home(of: hash)
        while let candidate = table.object(at: &slot, hash: hash) {
            if Self.isIdentical(objects[candidate], object) { return candidate }
            slot = table.next(after: slot)
        }
        return try insert(object, hash: hash, slot: slot, size: BinaryPropertyListWriter.scalarSize(object))
    }

    /// Completes the container whose placeholder is `index`, its children just added as
    /// `references[first...]`: records it, or, if an identical container was added before,
    /// drops it again and returns that one.
    ///
    /// Dropping is safe because a container identical to one added before has children
    /// that were all added before it: nothing was appended after its placeholder but the
    /// references of its own run. The outermost container is not looked up: nothing else
    /// can equal it, and it is the largest to hash.
    private mutating func finishContainer(
        _ kind: ObjectKind, at index: Int, first: Int, count: Int, depth: Int
    ) throws(PropertyListError) -> Int {
        let object: FlatObject = kind == .array ? .array(first: first, count: count) : .dictionary(first: first, count: count)
        if depth > 0 {
            let length = kind == .array ? count : 2 * count
            let hash = references.withUnsafeBufferPointer { references in
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: references[first..<(first + length)])))
                return hasher.finalize() ^ Int(kind.rawValue)
            }
            table.reserve(capacity: table.count + 1)
            var slot = table.home(of: hash)
            while let candidate = table.object(at: &slot, hash: hash) {
                if sameContainer(objects[candidate], object) {
                    precondition(
                        objects.count == index + 1 && references.count == first + length,
                        "a repeated container added objects of its own")
                    objects.removeLast()
                    references.removeLast(length)
                    return candidate
                }
                slot = table.next(after: slot)
            }
            table.insert(index, hash: hash, at: slot)
        }
        // Checked only now: a repeated container's placeholder never counts.
        guard objects.count <= PropertyListLimits.maximumObjectCount else { throw Self.tooManyObjects }
        objects[index] = object
        return index
    }

    /// Whether two containers are of one kind with the same children in the same order.
    /// Their children are already shared, so comparing object numbers compares values.
    private func sameContainer(_ lhs: FlatObject, _ rhs: FlatObject) -> Bool {
        let (a, b, length): (Int, Int, Int)
        switch (lhs, rhs) {
        case (.array(let first, let count), .array(let other, let otherCount)) where count == otherCount:
            (a, b, length) = (first, other, count)
        case (.dictionary(let first, let count), .dictionary(let other, let otherCount)) where count == otherCount:
            (a, b, length) = (first, other, 2 * count)
        default:
            return false
        }
        return references.withUnsafeBufferPointer { references in
            references[a..<(a + length)].elementsEqual(references[b..<(b + length)])
        }
    }

    private mutating func insert(_ object: FlatObject, hash: Int, slot: Int, size: Int) throws(PropertyListError) -> Int {
        try checkObjectCount()
        objects.append(object)
        table.insert(objects.count - 1, hash: hash, at: slot)
        scalarBytes += size
        return objects.count - 1
    }

    /// Exact identity for sharing: bits and bytes, so `0.0` and `-0.0` stay distinct.
    private static func isIdentical(_ lhs: FlatObject, _ rhs: FlatObject) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        default: false
        }
    }

    /// Whether two strings have the same UTF-8 bytes: canonically equivalent strings
    /// spelled differently stay distinct objects.
    private static func sameUTF8(_ lhs: inout String, _ rhs: inout String) -> Bool {
        lhs.withUTF8 { a in rhs.withUTF8 { b in a.count == b.count && a.elementsEqual(b) } }
    }

    /// The number of UTF-16 code units `utf8` (valid UTF-8, as every `String` is) becomes,
    /// or nil if it is all ASCII and is written byte for byte.
    private static func utf16Count(_ utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        let raw = UnsafeRawBufferPointer(utf8)
        guard let base = raw.baseAddress else { return nil }
        var position = 0
        while position + 8 <= raw.count,
            base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            position += 8
        }
        while position < raw.count, utf8[position] < 0x80 { position += 1 }
        if position == raw.count { return nil }
        // Every scalar is one unit but those above U+FFFF, which are two: count the bytes
        // that start a scalar, and once more those that start a four-byte one.
        var units = position
        while position < raw.count {
            let byte = utf8[position]
            if byte & 0xC0 != 0x80 { units += 1 }
            if byte >= 0xF0 { units += 1 }
            position += 1
        }
        return units
    }

    /// The size of a marker holding `count`: inline below 15, else followed by an integer.
    static func headerSize(count: Int) -> Int {
        count < 15 ? 1 : 1 + BinaryPropertyListWriter.integerSize(PropertyListInteger(count))
    }

    // MARK: Sorting keys

    /// One dictionary entry. A struct rather than a tuple: an array of tuples is destroyed
    /// through the runtime's generic tuple code, one call per element.
    private struct Entry {
        var key: String
        var value: PropertyListValue
    }

    /// Where one key's UTF-8 bytes lie in `keyBytes`, with its first eight bytes after the
    /// prefix all the dictionary's keys share, as a big-endian number (zero-padded), which
    /// decides most comparisons on its own.
    private struct KeySpan {
        var prefix: UInt64
        var start: Int
        var count: Int
        var entry: Int
    }

    /// The entries in UTF-8 byte order of their keys, which is Unicode code point order
    /// (as CPython's plistlib sorts keys) and much cheaper than `String`'s canonical order.
    ///
    /// Returns the entries and, as `order[i].entry`, the position in them of the `i`th
    /// key in that order. Sorts small records holding each key's leading bytes as a number:
    /// comparing `String`s, or calling `memcmp` for every comparison, made sorting the
    /// largest part of encoding. The bytes every key starts with are skipped: keys in a
    /// domain often share a long prefix (`com.example.setting.`), which would otherwise
    /// be compared again in every comparison.
    private mutating func sortedByKey(_ entries: [String: PropertyListValue]) -> (entries: [Entry], order: [KeySpan]) {
        var pairs: [Entry] = []
        pairs.reserveCapacity(entries.count)
        var order: [KeySpan] = []
        order.reserveCapacity(entries.count)
        keyBytes.removeAll(keepingCapacity: true)
        for (key, value) in entries {
            var key = key
            key.withUTF8 { utf8 in
                order.append(KeySpan(prefix: 0, start: keyBytes.count, count: utf8.count, entry: pairs.count))
                keyBytes.append(contentsOf: utf8)
            }
            pairs.append(Entry(key: key, value: value))
        }
        guard order.count > 1 else { return (pairs, order) }
        keyBytes.withUnsafeBytes { bytes in
            let base = bytes.baseAddress.unsafelyUnwrapped
            // The length of the prefix all keys share: what each key has in common with the
            // first, at most.
            var shared = order[0].count
            for span in order.dropFirst() where shared > 0 {
                shared = Self.commonPrefixLength(base + order[0].start, base + span.start, limit: min(shared, span.count))
            }
            for position in order.indices {
                let span = order[position]
                var prefix: UInt64 = 0
                for offset in shared..<(shared + 8) {
                    prefix = prefix << 8 | UInt64(offset < span.count ? base.load(fromByteOffset: span.start + offset, as: UInt8.self) : 0)
                }
                order[position].prefix = prefix
                order[position].start += shared
                order[position].count -= shared
            }
            order.sort { a, b in Self.precedes(a, b, in: bytes) }
        }
        return (pairs, order)
    }

    /// How many leading bytes, at most `limit`, the bytes at `a` and at `b` have in common.
    private static func commonPrefixLength(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, limit: Int) -> Int {
        var length = 0
        while length + 8 <= limit,
            a.loadUnaligned(fromByteOffset: length, as: UInt64.self) == b.loadUnaligned(fromByteOffset: length, as: UInt64.self)
        {
            length += 8
        }
        while length < limit, a.load(fromByteOffset: length, as: UInt8.self) == b.load(fromByteOffset: length, as: UInt8.self) {
            length += 1
        }
        return length
    }

    /// Byte-wise order of two keys after their shared prefix: by their first eight bytes,
    /// then eight bytes at a time, then by length (a key sorts after its own prefixes).
    @inline(__always)
    private static func precedes(_ a: KeySpan, _ b: KeySpan, in bytes: UnsafeRawBufferPointer) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let common = min(a.count, b.count)
        if common > 8, let base = bytes.baseAddress {
            var position = 8
            while position + 8 <= common {
                let left = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: a.start + position, as: UInt64.self))
                let right = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: b.start + position, as: UInt64.self))
                if left != right { return left < right }
                position += 8
            }
            while position < common {
                let left = base.load(fromByteOffset: a.start + position, as: UInt8.self)
                let right = base.load(fromByteOffset: b.start + position, as: UInt8.self)
                if left != right { return left < right }
                position += 1
            }
        }
        return a.count < b.count
    }

    // MARK: Limits

    /// Grows the tables ahead of a container's children, so they are not regrown
    /// repeatedly as a large dictionary is walked. Growth stays geometric: reserving
    /// exactly what each small container needs would reallocate for every one of them.
    private mutating func reserve(additional: Int) {
        let needed = objects.count + additional
        if needed > objects.capacity {
            objects.reserveCapacity(max(needed, 2 * objects.capacity))
        }
        table.reserve(capacity: table.count + additional)
    }

    /// Appends a placeholder for a container, whose children are added after it. The
    /// placeholder is counted against the object limit by `finishContainer`, once it is
    /// known not to repeat a container added before; the children count it meanwhile.
    private mutating func reserve(depth: Int) throws(PropertyListError) -> Int {
        guard depth < PropertyListLimits.maximumDepth else {
            throw PropertyListError(
                .tooDeep, "the value nests more than \(PropertyListLimits.maximumDepth) containers, more than a decoder accepts")
        }
        objects.append(.array(first: 0, count: 0))
        return objects.count - 1
    }

    private func checkObjectCount() throws(PropertyListError) {
        guard objects.count < PropertyListLimits.maximumObjectCount else { throw Self.tooManyObjects }
    }

    private static var tooManyObjects: PropertyListError {
        PropertyListError(
            .tooManyObjects,
            "the value needs more than \(PropertyListLimits.maximumObjectCount) distinct objects, more than a decoder accepts")
    }
}

/// An open-addressing hash set of object numbers, keyed by a hash of the object.
///
/// The `Dictionary` it replaces hashed every scalar twice (once for its identity, once
/// more for the table) and copied identities in and out; this one stores the hash once
/// and leaves the comparison of candidates to the caller. Hashes come from `Hasher`,
/// which is seeded per process, so crafted input cannot force collisions.
private struct UniquingTable {
    /// Zero for an empty slot; otherwise the object number plus one in the low 32 bits and
    /// the hash's low 32 bits in the high 32, so a probe passes over most other objects
    /// without looking at them, and the table can grow without rehashing any object.
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// Makes room for `capacity` objects at a load of at most one half.
    @inline(__always)
    mutating func reserve(capacity: Int) {
        if 2 * capacity > slots.count { grow(to: capacity) }
    }

    private mutating func grow(to capacity: Int) {
        var size = slots.count
        while 2 * capacity > size { size *= 2 }
        let old = slots
        slots = Array(repeating: 0, count: size)
        let mask = size - 1
        for entry in old where entry != 0 {
            var slot = Int(truncatingIfNeeded: entry >> 32) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    @inline(__always)
    func home(of hash: Int) -> Int {
        Int(UInt32(truncatingIfNeeded: hash)) & (slots.count - 1)
    }

    @inline(__always)
    func next(after slot: Int) -> Int {
        (slot + 1) & (slots.count - 1)
    }

    /// The object at `slot` if its hash may be `hash`, walking past those whose hash
    /// certainly differs; nil at the first empty slot, where the object would go.
    @inline(__always)
    func object(at slot: inout Int, hash: Int) -> Int? {
        let tag = UInt64(UInt32(truncatingIfNeeded: hash))
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if entry >> 32 == tag { return Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1 }
            slot = next(after: slot)
        }
    }

    @inline(__always)
    mutating func insert(_ object: Int, hash: Int, at slot: Int) {
        slots[slot] = UInt64(UInt32(truncatingIfNeeded: hash)) << 32 | UInt64(object + 1)
        count += 1
    }
}

/// Lays a flat object list out as bytes, header, objects, offset table and trailer, into
/// one buffer of exactly the file's size.
private struct BinaryPropertyListWriter {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    let flattener: ObjectFlattener

    func write() -> [UInt8] {
        let objects = flattener.objects
        let references = flattener.references
        let referenceWidth = Format.width(for: UInt64(objects.count - 1))
        var containerBytes = 0
        for object in objects {
            switch object {
            case .array(_, let count): containerBytes += ObjectFlattener.headerSize(count: count) + count * referenceWidth
            case .dictionary(_, let count): containerBytes += ObjectFlattener.headerSize(count: count) + 2 * count * referenceWidth
            default: break
            }
        }
        let tableOffset = Format.headerLength + flattener.scalarBytes + containerBytes
        let lastOffset = tableOffset - Self.size(of: objects[objects.count - 1], referenceWidth: referenceWidth)
        let offsetWidth = Format.width(for: UInt64(lastOffset))
        let total = tableOffset + objects.count * offsetWidth + Format.trailerLength

        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var out = ByteCursor(buffer.baseAddress!)
            var table = ByteCursor(buffer.baseAddress! + tableOffset)
            for byte in Format.magic { out.append(byte) }
            for byte in Format.version { out.append(byte) }
            references.withUnsafeBufferPointer { references in
                for object in objects {
                    table.appendBigEndian(UInt64(out.offset(from: buffer.baseAddress!)), width: offsetWidth)
                    switch object {
                    case .array(let first, let count):
                        out.appendHeader(Marker.array, count: count)
                        for child in references[first..<(first + count)] {
                            out.appendBigEndian(UInt64(child), width: referenceWidth)
                        }
                    case .dictionary(let first, let count):
                        out.appendHeader(Marker.dictionary, count: count)
                        for child in references[first..<(first + 2 * count)] {
                            out.appendBigEndian(UInt64(child), width: referenceWidth)
                        }
                    default:
                        out.appendScalar(object)
                    }
                }
            }
            // The objects end exactly where the table starts, and the table where the
            // trailer does: the sizes above and the bytes written must agree.
            precondition(out.offset(from: buffer.baseAddress!) == tableOffset, "encoder object sizes are inconsistent")
            precondition(table.offset(from: buffer.baseAddress!) == total - Format.trailerLength, "encoder offset table size is inconsistent")
            for _ in 0..<6 { table.append(0) }
            table.append(UInt8(offsetWidth))
            table.append(UInt8(referenceWidth))
            table.appendBigEndian(UInt64(objects.count), width: 8)
            table.appendBigEndian(0, width: 8)
            table.appendBigEndian(UInt64(tableOffset), width: 8)
            initialized = total
        }
    }

    /// The bytes `object` takes when written.
    static func size(of object: FlatObject, referenceWidth: Int) -> Int {
        switch object {
        case .array(_, let count): ObjectFlattener.headerSize(count: count) + count * referenceWidth
        case .dictionary(_, let count): ObjectFlattener.headerSize(count: count) + 2 * count * referenceWidth
        default: scalarSize(object)
        }
    }

    /// The bytes a scalar object takes when written.
    static func scalarSize(_ object: FlatObject) -> Int {
        switch object {
        case .bool: 1
        case .integer(let integer): integerSize(integer)
        case .float: 5
        case .double, .date: 9
        case .data(let data): ObjectFlattener.headerSize(count: data.count) + data.count
        case .asciiString(let string): ObjectFlattener.headerSize(count: string.utf8.count) + string.utf8.count
        case .utf16String(_, let units): ObjectFlattener.headerSize(count: units) + 2 * units
        case .array, .dictionary: preconditionFailure("containers are sized with their reference width")
        }
    }

    /// The bytes an integer object takes: a marker and 1, 2 or 4 bytes unsigned, 8 signed,
    /// or 16 for unsigned values above `Int64.max`.
    static func integerSize(_ integer: PropertyListInteger) -> Int {
        guard let signed = integer.int64Value else { return 17 }
        if signed < 0 || signed > 0xFFFF_FFFF { return 9 }
        return 1 + Format.width(for: UInt64(signed))
    }
}

/// Writes bytes at a moving position in a buffer the writer sized exactly beforehand.
private struct ByteCursor {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    private var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        position = start
    }

    func offset(from start: UnsafeMutablePointer<UInt8>) -> Int {
        position - start
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        position.initialize(to: byte)
        position += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        let raw = UnsafeMutableRawPointer(position)
        switch width {
        case 1: raw.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        case 8: raw.storeBytes(of: value.bigEndian, as: UInt64.self)
        default:
            var shift = (width - 1) * 8
            var byte = position
            while shift >= 0 {
                byte.initialize(to: UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                byte += 1
                shift -= 8
            }
        }
        position += width
    }

    /// Writes a marker with its count: inline below 15, else as a following integer.
    @inline(__always)
    mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            append(marker | UInt8(count))
        } else {
            append(marker | Marker.countFollows)
            appendInteger(PropertyListInteger(count))
        }
    }

    /// Writes an integer in the fewest bytes: 1, 2 or 4 unsigned, 8 signed, or the 16-byte
    /// form for unsigned values above `Int64.max`.
    mutating func appendInteger(_ integer: PropertyListInteger) {
        if let signed = integer.int64Value {
            if signed < 0 || signed > 0xFFFF_FFFF {
                append(Marker.integer | 3)
                appendBigEndian(UInt64(bitPattern: signed), width: 8)
            } else {
                let width = Format.width(for: UInt64(signed))
                append(Marker.integer | UInt8(width.trailingZeroBitCount))
                appendBigEndian(UInt64(signed), width: width)
            }
        } else {
            append(Marker.integer | 4)
            appendBigEndian(0, width: 8)
            appendBigEndian(integer.uint64Value!, width: 8)
        }
    }

    mutating func appendScalar(_ object: FlatObject) {
        switch object {
        case .bool(let bool):
            append(bool ? Marker.true : Marker.false)
        case .integer(let integer):
            appendInteger(integer)
        case .float(let bits):
            append(Marker.float32)
            appendBigEndian(UInt64(bits), width: 4)
        case .double(let bits):
            append(Marker.float64)
            appendBigEndian(bits, width: 8)
        case .date(let bits):
            append(Marker.date)
            appendBigEndian(bits, width: 8)
        case .data(let data):
            appendHeader(Marker.data, count: data.count)
            data.withUnsafeBytes { append($0) }
        case .asciiString(var string):
            string.withUTF8 { utf8 in
                appendHeader(Marker.asciiString, count: utf8.count)
                append(UnsafeRawBufferPointer(utf8))
            }
        case .utf16String(var string, let units):
            appendHeader(Marker.utf16String, count: units)
            string.withUTF8 { appendUTF16(from: $0) }
        case .array, .dictionary:
            preconditionFailure("containers are written with their references")
        }
    }

    /// Transcodes UTF-8 (valid, as every `String` is) to big-endian UTF-16, straight from
    /// the string's bytes: going through `String.utf16` cost a call per code unit.
    private mutating func appendUTF16(from utf8: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = utf8.count
        while index < count {
            let lead = UInt32(utf8[index])
            var scalar: UInt32
            if lead < 0x80 {
                scalar = lead
                index += 1
            } else if lead < 0xE0 {
                scalar = (lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                index += 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                index += 3
            } else {
                scalar = (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                    | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                index += 4
            }
            if scalar >= 0x10000 {
                scalar -= 0x10000
                appendBigEndian(UInt64(0xD800 + (scalar >> 10)), width: 2)
                appendBigEndian(UInt64(0xDC00 + (scalar & 0x3FF)), width: 2)
            } else {
                appendBigEndian(UInt64(scalar), width: 2)
            }
        }
    }
}
