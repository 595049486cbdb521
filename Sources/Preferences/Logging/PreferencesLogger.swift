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

    /// Per kind of event: when its current 10-second window began, how many entries it has
    /// logged in it, and how many it has suppressed.
    private static let windows = Mutex([PreferencesLogEvent: (start: ContinuousClock.Instant, logged: Int, suppressed: Int)]())

    /// Whether an entry of `event` may be logged now: at most 10 per kind per 10 seconds.
    /// When a window ends with entries suppressed, their number is returned so the caller
    /// can log one summary.
    static func admit(_ event: PreferencesLogEvent) -> (allowed: Bool, suppressedBefore: Int) {
        let now = ContinuousClock.now
        return windows.withLock { windows in
            var window = windows[event] ?? (now, 0, 0)
            var suppressedBefore = 0
            if now - window.start >= .seconds(10) {
                suppressedBefore = window.suppressed
                window = (now, 0, 0)
            }
            let allowed = window.logged < 10
            if allowed { window.logged += 1 } else { window.suppressed += 1 }
            windows[event] = window
            return (allowed, suppressedBefore)
        }
    }

    /// Logs the "suppressed N" summary for a window that dropped entries.
    static func logSuppressed(_ count: Int, of event: PreferencesLogEvent, to logger: Logger) {
        guard count > 0 else { return }
        logger.warning(
            "suppressed \(count) more entries like the last (at most 10 per 10 seconds)",
            metadata: ["MESSAGE_ID": .string(event.messageID), "PREFERENCES_SUPPRESSED": .string(String(count))])
    }

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
