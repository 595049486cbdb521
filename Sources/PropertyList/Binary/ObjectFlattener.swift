#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
struct ObjectFlattener {
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
    var keyBytes: [UInt8] = []

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
