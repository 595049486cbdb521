extension ObjectFlattener {
    /// One dictionary entry. A struct rather than a tuple: an array of tuples is destroyed
    /// through the runtime's generic tuple code, one call per element.
    struct Entry {
        var key: String
        var value: PropertyListValue
    }

    /// Where one key's UTF-8 bytes lie in `keyBytes`, with its first eight bytes after the
    /// prefix all the dictionary's keys share, as a big-endian number (zero-padded), which
    /// decides most comparisons on its own.
    struct KeySpan {
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
    mutating func sortedByKey(_ entries: [String: PropertyListValue]) -> (entries: [Entry], order: [KeySpan]) {
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
}
