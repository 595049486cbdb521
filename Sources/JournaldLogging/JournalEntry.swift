import CSystemd
import Logging

/// One journal entry being assembled: every `NAME=value` field laid end to end in a single
/// byte buffer, so a message costs two growing arrays rather than one allocation per field.
///
/// `sd_journal_sendv` takes an iovec per field; ``withIOVecs(_:)`` builds them on the stack
/// over the buffer just before the call.
struct JournalEntry {
    /// The fields, one after another, without separators (each iovec carries its length).
    private(set) var bytes: [UInt8] = []
    /// Where each field ends in `bytes`; field `i` starts where field `i - 1` ends.
    private(set) var ends: [Int] = []

    /// Creates an empty entry with room for a typical message.
    init() {
        bytes.reserveCapacity(512)
        ends.reserveCapacity(16)
    }

    /// The number of fields.
    var count: Int { ends.count }

    /// Appends a field whose name is already valid (one of the handler's own).
    mutating func append(name: StaticString, value: some StringProtocol) {
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "="))
        bytes.append(contentsOf: value.utf8)
        ends.append(bytes.count)
    }

    /// Appends one metadata value under its key, mapping the key with `JournalFieldName`.
    ///
    /// Nested values are flattened rather than stringified, so each leaf stays a field that
    /// `journalctl FIELD=value` can match: a dictionary adds its keys to the name joined by
    /// `_` (`request: [id: 7]` → `REQUEST_ID=7`), and an array repeats the field once per
    /// element (`keys: [a, b]` → `KEYS=a`, `KEYS=b`), as journal fields may repeat. An empty
    /// dictionary or array adds no field.
    mutating func appendMetadata(key: String, value: Logger.MetadataValue) {
        switch value {
        case .string(let string):
            appendLeaf(rawName: nil, key: key, value: string)
        case .stringConvertible(let convertible):
            appendLeaf(rawName: nil, key: key, value: convertible.description)
        case .dictionary, .array:
            var rawName: [UInt8] = []
            JournalFieldName.appendSegment(key, to: &rawName)
            appendNested(rawName: rawName, value: value)
        }
    }

    /// Appends a nested value under a name not yet finished (rules 2–4 apply to the whole).
    private mutating func appendNested(rawName: [UInt8], value: Logger.MetadataValue) {
        switch value {
        case .string(let string):
            appendLeaf(rawName: rawName, key: nil, value: string)
        case .stringConvertible(let convertible):
            appendLeaf(rawName: rawName, key: nil, value: convertible.description)
        case .dictionary(let dictionary):
            for (key, nested) in dictionary {
                var name = rawName
                name.append(UInt8(ascii: "_"))
                JournalFieldName.appendSegment(key, to: &name)
                appendNested(rawName: name, value: nested)
            }
        case .array(let elements):
            for element in elements { appendNested(rawName: rawName, value: element) }
        }
    }

    /// Writes `NAME=value`, the name from a raw prefix or a key, finished in place.
    private mutating func appendLeaf(rawName: [UInt8]?, key: String?, value: String) {
        let start = bytes.count
        if let rawName { bytes.append(contentsOf: rawName) }
        if let key { JournalFieldName.appendSegment(key, to: &bytes) }
        JournalFieldName.finish(&bytes, from: start)
        bytes.append(UInt8(ascii: "="))
        bytes.append(contentsOf: value.utf8)
        ends.append(bytes.count)
    }

    /// Calls `body` with an iovec per field, pointing into the buffer, valid only inside it.
    func withIOVecs<Result>(_ body: (UnsafePointer<iovec>, Int32) -> Result) -> Result {
        bytes.withUnsafeBytes { buffer in
            // An entry always has MESSAGE and PRIORITY; an empty one would have no base address.
            precondition(!ends.isEmpty, "a journal entry needs at least one field")
            return withUnsafeTemporaryAllocation(of: iovec.self, capacity: max(ends.count, 1)) { vectors in
                var start = 0
                for (index, end) in ends.enumerated() {
                    // sd_journal_sendv only reads through iov_base; the C type is not const.
                    vectors[index] = iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress! + start),
                        iov_len: end - start)
                    start = end
                }
                return body(UnsafePointer(vectors.baseAddress!), Int32(ends.count))
            }
        }
    }
}
