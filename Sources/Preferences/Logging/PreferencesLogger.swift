import JournaldLogging
import Logging
import Synchronization

/// Where the store's log entries go, unless a store is given its own `Logger`.
///
/// journald when it is reachable (every flush, warnings and errors as structured entries);
/// otherwise standard error, for warnings and errors only, so a program without journald is
/// neither slowed nor flooded. Decided once per process, when the first store logs.
enum PreferencesLogger {
    /// The process's default logger.
    static let `default`: Logger = {
        if JournaldLogHandler.isJournalReachable() {
            var logger = Logger(label: "swift-preferences") { JournaldLogHandler(label: $0) }
            logger.logLevel = .info
            return logger
        }
        var logger = Logger(label: "swift-preferences") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }()

    private static let lastReported = Mutex([String: ContinuousClock.Instant]())

    /// Logs an error once per ten seconds per distinct description, so a damaged file or a
    /// full disk cannot flood the log.
    static func report(_ error: PreferencesError, event: PreferencesLogEvent, to logger: Logger) {
        let message = error.description
        let now = ContinuousClock.now
        let shouldLog = lastReported.withLock { table in
            if let last = table[message], now - last < .seconds(10) { return false }
            table[message] = now
            return true
        }
        guard shouldLog else { return }
        var metadata: Logger.Metadata = [
            "MESSAGE_ID": .string(event.messageID),
            "PREFERENCES_ERROR": .string(error.code.description),
        ]
        if let path = error.path { metadata["PREFERENCES_PATH"] = .string(path) }
        if let errno = error.errno { metadata["ERRNO"] = .string(String(errno)) }
        logger.error("\(message)", metadata: metadata)
    }
}
