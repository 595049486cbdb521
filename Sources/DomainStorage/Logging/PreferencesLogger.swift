import Dispatch
import JournaldLogging
package import Logging

/// Where the store's log entries go, unless a store is given its own `Logger`.
///
/// journald when it is reachable (every flush, warnings and errors as structured entries);
/// otherwise standard error, for warnings and errors only, so a program without journald is
/// neither slowed nor flooded. Decided once per process, when the first store logs.
package enum PreferencesLogger {
    /// The process's default logger.
    package static let `default`: Logger = {
        if JournaldLogHandler.isJournalReachable() {
            var logger = Logger(label: "swift-preferences") { JournaldLogHandler(label: $0) }
            logger.logLevel = .info
            return logger
        }
        var logger = Logger(label: "swift-preferences") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }()

    private static let lastReported = ThreadLock([String: ContinuousClock.Instant](), rank: .leaf)

    /// The length of a rate-limiting window.
    package static let window: Duration = .seconds(10)
    /// The most entries of one kind logged in one window.
    package static let entriesPerWindow = 10

    /// Per kind of event: when its current window began, how many entries it has logged in
    /// it, and how many it has suppressed and not yet summarised.
    private static let windows = ThreadLock([PreferencesLogEvent: (start: ContinuousClock.Instant, logged: Int, suppressed: Int)](), rank: .leaf)

    /// Whether an entry of `event` may be logged now: at most 10 per kind per 10 seconds.
    ///
    /// The entries a window drops are summed up in one "suppressed N" entry to `logger`:
    /// when the window ends, or sooner if the next entry of the kind opens a new window
    /// first. So a storm that stops is still accounted for, without a later entry.
    package static func admit(_ event: PreferencesLogEvent, summarizingTo logger: Logger) -> Bool {
        let now = ContinuousClock.now
        let (allowed, summary, scheduleAt) = windows.withLock { windows -> (Bool, Int, ContinuousClock.Instant?) in
            var window = windows[event] ?? (now, 0, 0)
            var summary = 0
            if now - window.start >= Self.window {
                summary = window.suppressed
                window = (now, 0, 0)
            }
            let allowed = window.logged < Self.entriesPerWindow
            var scheduleAt: ContinuousClock.Instant?
            if allowed {
                window.logged += 1
            } else {
                window.suppressed += 1
                // The first entry dropped in a window sets the summary's timer.
                if window.suppressed == 1 { scheduleAt = window.start + Self.window }
            }
            windows[event] = window
            return (allowed, summary, scheduleAt)
        }
        logSuppressed(summary, of: event, to: logger)
        if let scheduleAt { scheduleSummary(of: event, windowStart: scheduleAt - Self.window, at: scheduleAt, to: logger) }
        return allowed
    }

    /// Logs the summary of the window that began at `windowStart` when it ends, unless the
    /// next entry of the kind has already done so.
    private static func scheduleSummary(
        of event: PreferencesLogEvent, windowStart: ContinuousClock.Instant, at deadline: ContinuousClock.Instant,
        to logger: Logger
    ) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now(after: ContinuousClock.now.duration(to: deadline))) {
            let count = windows.withLock { windows -> Int in
                guard var window = windows[event], window.start == windowStart else { return 0 }
                defer { window.suppressed = 0; windows[event] = window }
                return window.suppressed
            }
            logSuppressed(count, of: event, to: logger)
        }
    }

    /// Logs the "suppressed N" summary for a window that dropped entries.
    private static func logSuppressed(_ count: Int, of event: PreferencesLogEvent, to logger: Logger) {
        guard count > 0 else { return }
        logger.warning(
            "suppressed \(count) more entries like the last (at most \(entriesPerWindow) per \(window))",
            metadata: [PreferencesLogField.messageID: .string(event.messageID), PreferencesLogField.suppressed: .string(String(count))])
    }

    /// Whether `message` may be logged now: once per ten seconds per distinct message.
    package static func admitOnce(_ message: String) -> Bool {
        let now = ContinuousClock.now
        return lastReported.withLock { table in
            if let last = table[message], now - last < .seconds(10) { return false }
            table[message] = now
            return true
        }
    }

    /// Logs an error once per ten seconds per distinct description, so a damaged file or a
    /// full disk cannot flood the log.
    package static func report(_ error: PreferencesError, event: PreferencesLogEvent, to logger: Logger) {
        let message = error.description
        guard admitOnce(message) else { return }
        var metadata: Logger.Metadata = [
            PreferencesLogField.messageID: .string(event.messageID),
            PreferencesLogField.error: .string(error.code.description),
        ]
        if let path = error.path { metadata[PreferencesLogField.path] = .string(path) }
        if let errno = error.errno { metadata[PreferencesLogField.errno] = .string(String(errno)) }
        logger.error("\(message)", metadata: metadata)
    }
}
