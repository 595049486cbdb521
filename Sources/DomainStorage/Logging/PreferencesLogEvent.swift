/// The kinds of journal entry the store writes, each with a fixed `MESSAGE_ID`.
///
/// `journalctl MESSAGE_ID=...` finds every entry of one kind, and `journalctl -x` shows its
/// explanation from `systemd/swift-preferences.catalog` once that is installed.
package enum PreferencesLogEvent: String, Sendable, CaseIterable {
    /// A flush wrote a domain file (info).
    case wrote
    /// A domain file could not be written; the changes stay pending and are retried (error).
    case writeFailed
    /// A domain file could not be used: corrupt, unsafe or unreadable (error).
    case unreadable
    /// A set made a domain larger than its soft size limit (warning).
    case sizeWarning
    /// A set was refused because the domain would exceed its hard size limit (error).
    case sizeRefused
    /// A set of a declared key broke its schema and was refused (warning).
    case schemaViolation
    /// A stored value of a declared key breaks its schema and reads as the default (warning).
    case invalidStoredValue
    /// A domain's schema could not be used; the domain works without it (error).
    case schemaUnusable
    /// A value was moved from a key's old name to its declared name (info).
    case migrated
    /// A domain's commit counter could not be used; its reads rely on the watcher (warning).
    case freshReadsUnavailable
    /// A domain file is corrupt and the newest generation that decodes is used instead (warning).
    case recovered
    /// A domain's history directory cannot be used, so no generation is kept (warning).
    case historyUnusable
    /// corelibs-Foundation's settings file for a domain was imported into it (info).
    case foundationImported
    /// corelibs-Foundation's settings file for a domain was refused; nothing was written (warning).
    case foundationImportRefused

    /// The 128-bit id, as journald writes it: 32 lowercase hex digits.
    package var messageID: String {
        switch self {
        case .wrote: "bee61232af8949879dd51df0fa8ceb8a"
        case .writeFailed: "0607fe15d2164a9e8024df88f4592d02"
        case .unreadable: "7ea7d374aa6a423db4198c9d363f2d95"
        case .sizeWarning: "cde19ffe71da435783b857a19e271e31"
        case .sizeRefused: "7d199ead685a4294a32f660bd3ab101f"
        case .schemaViolation: "5b0f3c2e9d7a4e61a8c4f27d13e9b605"
        case .invalidStoredValue: "c8e2a4716f3b4d09b5e1d7a2f60c9e84"
        case .schemaUnusable: "2f9d6b1ae0c74583a6d3e8b5c1f47a29"
        case .migrated: "91a7e3c5d2b64f08b3e9a1c7d5f26e40"
        case .freshReadsUnavailable: "d41c6f0e8a2b4975b7e3c9a1f5d80e36"
        case .recovered: "f4c976933db047279d2a1790a5f4558a"
        case .historyUnusable: "e77f6f76d1d94e5885bb297c5d448748"
        case .foundationImported: "dbdb7c16898d44cbbf217640a423d50b"
        case .foundationImportRefused: "77ee0c5ad61543808a898c4ab192d28b"
        }
    }
}
