extension PropertyListValue {
    /// About how many bytes this value adds to a binary property list: an upper bound that
    /// ignores the sharing of identical values, so a store can check its size limits on
    /// every set without encoding the domain.
    var estimatedEncodedSize: Int {
        // Each object also costs an offset-table entry and a reference to it.
        let overhead = 4
        switch self {
        case .bool: return 1 + overhead
        case .float: return 5 + overhead
        case .integer, .double, .date: return 9 + overhead
        case .data(let data): return 3 + data.count + overhead
        case .string(let string): return Self.estimatedSize(of: string)
        case .array(let elements): return 3 + overhead + elements.reduce(0) { $0 + $1.estimatedEncodedSize }
        case .dictionary(let entries):
            return 3 + overhead + entries.reduce(0) { $0 + Self.estimatedSize(of: $1.key) + $1.value.estimatedEncodedSize }
        }
    }

    /// A string's size: its UTF-8 bytes if ASCII, else twice that (UTF-16 never needs more).
    static func estimatedSize(of string: String) -> Int {
        let utf8 = string.utf8
        // Native strings are contiguous: scanning their buffer is several times cheaper than
        // iterating the view, and a set measures its key on every call.
        let isASCII = utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } }
            ?? utf8.allSatisfy { $0 < 0x80 }
        return 3 + (isASCII ? utf8.count : 2 * utf8.count) + 4
    }

    /// What one key and its value (nil: none) add to a domain's file.
    static func estimatedEntrySize(key: String, value: PropertyListValue?) -> Int {
        guard let value else { return 0 }
        return estimatedSize(of: key) + value.estimatedEncodedSize
    }
}
