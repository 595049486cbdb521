/// The rules that turn a swift-log metadata key into a journal field name, and the names of
/// the journald fields a program sets itself.
///
/// journald accepts only names of `[A-Z0-9_]`, not starting with a digit, at most 64 bytes;
/// names starting with `_` are its own trusted fields, and it silently drops any field that
/// breaks a rule. So every key is mapped, never dropped:
///
/// 1. ASCII letters are upper-cased, ASCII digits and `_` kept, and every other Unicode
///    scalar (`.`, `-`, space, `é`, …) becomes one `_`: `preferences.domain` →
///    `PREFERENCES_DOMAIN`, `request-id` → `REQUEST_ID`.
/// 2. Leading `_` are removed, because a client cannot set trusted fields.
/// 3. A name that is then empty, starts with a digit, or is one ``JournaldLogHandler`` sets
///    itself (`MESSAGE`, `PRIORITY`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`,
///    `SYSLOG_IDENTIFIER`, `LOGGER_LABEL`) gets the prefix `METADATA_`: `message` →
///    `METADATA_MESSAGE`, `404` → `METADATA_404`.
/// 4. The result is cut to 64 bytes.
///
/// Two keys may map to the same name (`a.b` and `a_b`); journald keeps both values, as a
/// field may repeat.
///
/// The fields with a meaning to journald that a program sets itself are named here, to be
/// used as metadata keys: such a name is valid, so it passes through the rules unchanged.
///
/// ```swift
/// logger.error("Upload failed", metadata: [
///     JournalFieldName.messageID: "8f2c5c0e4a1d4b5e9d1f0a2b3c4d5e6f",
///     JournalFieldName.errno: "28",
/// ])
/// ```
public enum JournalFieldName {
    /// `MESSAGE_ID`: the kind of entry, a 128-bit id written as 32 lowercase hex digits, so
    /// `journalctl MESSAGE_ID=…` finds every entry of the kind and `journalctl -x` adds its
    /// explanation from an installed catalog.
    public static let messageID = "MESSAGE_ID"

    /// `ERRNO`: the `errno` the entry reports, in decimal (`28`), which `journalctl` can match
    /// as any other field.
    public static let errno = "ERRNO"

    /// The longest name journald accepts.
    static let maximumLength = 64

    /// The prefix for names that would otherwise be invalid or clash with the handler's own.
    static let prefix: [UInt8] = Array("METADATA_".utf8)

    /// The fields `JournaldLogHandler` writes itself; metadata cannot overwrite or repeat them,
    /// because two `MESSAGE` or `PRIORITY` values make the entry ambiguous.
    static let handlerOwned: Set<[UInt8]> = Set(
        ["MESSAGE", "PRIORITY", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "SYSLOG_IDENTIFIER", "LOGGER_LABEL"]
            .map { Array($0.utf8) })

    /// Appends `key` with rule 1 applied, for one segment of a (possibly nested) name.
    static func appendSegment(_ key: String, to bytes: inout [UInt8]) {
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0x61...0x7A: bytes.append(UInt8(scalar.value) - 0x20)  // a-z
            case 0x41...0x5A, 0x30...0x39, 0x5F: bytes.append(UInt8(scalar.value))  // A-Z 0-9 _
            default: bytes.append(UInt8(ascii: "_"))
            }
        }
    }

    /// Applies rules 2–4 in place to the name written at `bytes[start...]`.
    static func finish(_ bytes: inout [UInt8], from start: Int) {
        var leading = start
        while leading < bytes.count, bytes[leading] == UInt8(ascii: "_") { leading += 1 }
        bytes.removeSubrange(start..<leading)
        let name = bytes[start...]
        if name.isEmpty || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name.first!)
            || handlerOwned.contains(Array(name))
        {
            bytes.insert(contentsOf: prefix, at: start)
        }
        if bytes.count - start > maximumLength {
            bytes.removeSubrange((start + maximumLength)...)
        }
    }

    /// The journal field name for a metadata key, as a string (for tests and documentation).
    static func sanitised(_ key: String) -> String {
        var bytes: [UInt8] = []
        appendSegment(key, to: &bytes)
        finish(&bytes, from: 0)
        return String(decoding: bytes, as: UTF8.self)
    }
}
