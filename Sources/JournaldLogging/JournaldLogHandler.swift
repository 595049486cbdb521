public import Logging

/// A swift-log `LogHandler` that writes each message to systemd-journald as a structured entry.
///
/// Every entry carries `MESSAGE`, `PRIORITY` (see `Logger.Level.journalPriority`),
/// `CODE_FILE`/`CODE_LINE`/`CODE_FUNC` (libsystemd adds these only for its C macros, so the
/// handler sends them), `SYSLOG_IDENTIFIER` and `LOGGER_LABEL`, plus one field per metadata
/// value. Metadata comes from the handler (which is also the `Logger`'s metadata), the metadata
/// provider and the call; on a clash the call wins over the provider, which wins over the
/// handler, as in swift-log's `StreamLogHandler`. An error passed to the call becomes
/// `ERROR_MESSAGE` and `ERROR_TYPE`.
///
/// Metadata keys become field names by upper-casing and replacing every other character with
/// `_` (`preferences.domain` → `PREFERENCES_DOMAIN`); nested dictionaries are flattened into
/// `PARENT_CHILD` names and arrays repeat the field once per element. A key such as
/// `MESSAGE_ID` passes through unchanged, so a fixed catalog id can be attached as metadata.
/// Keys that would clash with the fields above get the prefix `METADATA_`.
///
/// `SYSLOG_IDENTIFIER` is the process name by default, not the label, because that is what
/// `journalctl -t NAME` and every other journald client expect; the label, which names a
/// subsystem, is in `LOGGER_LABEL` (`journalctl LOGGER_LABEL=…`).
///
/// Constructed directly, the handler always sends to journald, and writes a message to standard
/// error only when sending it fails. Use ``makeHandler(label:metadataProvider:)`` to choose
/// standard error up front when there is no live journald, because libsystemd silently drops
/// entries when the journal socket is missing.
public struct JournaldLogHandler: LogHandler {
    /// The logger's label, sent as `LOGGER_LABEL`.
    public let label: String

    /// The value of `SYSLOG_IDENTIFIER` in every entry.
    public let syslogIdentifier: String

    /// The handler's (and its `Logger`'s) metadata, sent as fields with every message.
    public var metadata: Logger.Metadata = [:]

    /// The lowest level this handler's `Logger` passes on; `info` by default, as swift-log's
    /// own handlers.
    public var logLevel: Logger.Level = .info

    /// Supplies metadata (for example task-local context) at the moment each message is logged.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler that sends to journald.
    ///
    /// - Parameters:
    ///   - label: The logger's label, sent as `LOGGER_LABEL`.
    ///   - syslogIdentifier: The `SYSLOG_IDENTIFIER`; `nil` uses the process name.
    ///   - metadataProvider: Metadata to add to every message when it is logged.
    public init(
        label: String, syslogIdentifier: String? = nil,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.label = label
        self.syslogIdentifier = syslogIdentifier ?? Self.processName
        self.metadataProvider = metadataProvider
    }

    /// One metadata value of the handler (and its `Logger`).
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Sends one message to journald, or to standard error if journald refuses it.
    ///
    /// Never throws and never traps: a failed send (any negative result of `sd_journal_sendv`,
    /// such as `-ECONNREFUSED` from a stale socket) writes this one message to standard error.
    public func log(event: LogEvent) {
        let metadata = effectiveMetadata(for: event)
        var entry = JournalEntry()
        entry.append(name: "MESSAGE", value: event.message.description)
        entry.append(name: "PRIORITY", value: String(event.level.journalPriority))
        entry.append(name: "CODE_FILE", value: event.file)
        entry.append(name: "CODE_LINE", value: String(event.line))
        entry.append(name: "CODE_FUNC", value: event.function)
        entry.append(name: "SYSLOG_IDENTIFIER", value: syslogIdentifier)
        entry.append(name: "LOGGER_LABEL", value: label)
        for (key, value) in metadata {
            entry.appendMetadata(key: key, value: value)
        }
        if JournalSocket.send(entry) < 0 {
            writeToStandardError(event, metadata: metadata)
        }
    }

    /// Forwards the pre-1.16 entry point to ``log(event:)``, keeping the caller's `source`.
    ///
    /// swift-log's own default for this method drops `source` on its way to `log(event:)`.
    @available(*, deprecated, renamed: "log(event:)")
    public func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        log(event: LogEvent(
            level: level, message: message, metadata: metadata, source: source,
            file: file, function: function, line: line))
    }

    /// The handler's, the provider's and the call's metadata merged, plus the error, if any.
    ///
    /// Returns the handler's dictionary itself (no copy) in the common case of nothing else.
    private func effectiveMetadata(for event: LogEvent) -> Logger.Metadata {
        let provided = metadataProvider?.get() ?? [:]
        let explicit = event.metadata ?? [:]
        guard !provided.isEmpty || !explicit.isEmpty || event.error != nil else { return metadata }
        var merged = metadata
        merged.merge(provided) { _, provided in provided }
        merged.merge(explicit) { _, explicit in explicit }
        if let error = event.error {
            // The keys swift-log's StreamLogHandler uses, so both handlers agree.
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }

    /// Writes a message journald refused to standard error, with all its metadata.
    private func writeToStandardError(_ event: LogEvent, metadata: Logger.Metadata) {
        var stream = StreamLogHandler.standardError(label: label, metadataProvider: nil)
        stream.logLevel = .trace
        var event = event
        event.metadata = metadata
        event.error = nil  // already in `metadata`
        stream.log(event: event)
    }

    /// The last path component of the program's name, as `program_invocation_short_name`.
    static let processName: String = {
        guard let path = CommandLine.arguments.first, !path.isEmpty else { return "swift" }
        return String(path.split(separator: "/").last ?? Substring(path))
    }()
}
