public import Logging

extension Logger.Level {
    /// The syslog priority journald stores in `PRIORITY` for this level.
    ///
    /// swift-log has seven levels and syslog eight; `trace` and `debug` both map to debug (7),
    /// since syslog has nothing below it, and nothing maps to emerg (0) or alert (1), which
    /// mean the whole system is unusable: `info` 6, `notice` 5, `warning` 4, `error` 3,
    /// `critical` 2.
    public var journalPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
