import JournaldLogging

/// The metadata keys of the library's log entries, which journald keeps as fields of the same
/// names (`journalctl PREFERENCES_DOMAIN=com.example.editor`), so that each is spelled once.
///
/// What the entries carry is described to users in `systemd/swift-preferences.catalog` and
/// the Preferences articles; a renamed field breaks their `journalctl` filters.
package enum PreferencesLogField {
    /// `MESSAGE_ID`: the entry's kind (``PreferencesLogEvent/messageID``).
    package static let messageID = JournalFieldName.messageID
    /// `ERRNO`: the `errno` of the failure reported, in decimal.
    package static let errno = JournalFieldName.errno

    /// `PREFERENCES_DOMAIN`: the domain's name.
    package static let domain = "PREFERENCES_DOMAIN"
    /// `PREFERENCES_KEYS`: the keys concerned, one field each.
    package static let keys = "PREFERENCES_KEYS"
    /// `PREFERENCES_PATH`: the domain file's path (or the path of what failed).
    package static let path = "PREFERENCES_PATH"
    /// `PREFERENCES_ERROR`: the error's code (`corrupt`, `io`, …).
    package static let error = "PREFERENCES_ERROR"
    /// `PREFERENCES_BYTES`: the domain's size when encoded.
    package static let bytes = "PREFERENCES_BYTES"
    /// `PREFERENCES_LIMIT`: the size limit a write would pass.
    package static let limit = "PREFERENCES_LIMIT"
    /// `PREFERENCES_ORIGIN`: who made a commit (``CommitOrigin``).
    package static let origin = "PREFERENCES_ORIGIN"
    /// `PREFERENCES_COUNTER`: the path of the domain's commit counter.
    package static let counter = "PREFERENCES_COUNTER"
    /// `PREFERENCES_SCHEMA`: the path of the domain's schema.
    package static let schema = "PREFERENCES_SCHEMA"
    /// `PREFERENCES_SCHEMA_KEY_PATH`: where in the schema an unusable schema went wrong.
    package static let schemaKeyPath = "PREFERENCES_SCHEMA_KEY_PATH"
    /// `PREFERENCES_VALUE`: the value refused, or `<private>` for a private key.
    package static let value = "PREFERENCES_VALUE"
    /// `PREFERENCES_RULE`: the schema rule a value breaks, in words.
    package static let rule = "PREFERENCES_RULE"
    /// `PREFERENCES_GENERATION`: the number of the generation read instead of a corrupt file.
    package static let generation = "PREFERENCES_GENERATION"
    /// `PREFERENCES_GENERATION_PATH`: that generation's path.
    package static let generationPath = "PREFERENCES_GENERATION_PATH"
    /// `PREFERENCES_HISTORY_PATH`: the history directory that cannot be used.
    package static let historyPath = "PREFERENCES_HISTORY_PATH"
    /// `PREFERENCES_SOURCE`: the file values were imported from (corelibs-Foundation's).
    package static let source = "PREFERENCES_SOURCE"
    /// `PREFERENCES_SUPPRESSED`: how many entries of the kind a rate limit dropped.
    package static let suppressed = "PREFERENCES_SUPPRESSED"
}
