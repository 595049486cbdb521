public import Logging

extension JournaldLogHandler {
    /// The socket libsystemd sends journal entries to.
    public static let defaultSocketPath = JournalSocket.defaultPath

    /// Whether a journald is listening on `socketPath` and this process may write to it.
    ///
    /// False for a missing file, a file that is not a socket, a socket this process cannot
    /// write, and a stale socket file left by a journald that has exited (nobody listens, so
    /// sends would fail with `ECONNREFUSED`). Checking it matters because libsystemd reports
    /// success and drops the entry when the socket file is missing. It does not block.
    /// Another `socketPath` only changes what is checked: libsystemd always sends to
    /// ``defaultSocketPath``.
    public static func isJournalReachable(socketPath: String = defaultSocketPath) -> Bool {
        JournalSocket.isReachable(path: socketPath)
    }

    /// A handler for `label`: a `JournaldLogHandler` when journald is reachable now, otherwise
    /// swift-log's `StreamLogHandler` on standard error.
    ///
    /// For `LoggingSystem.bootstrap { JournaldLogHandler.makeHandler(label: $0) }`. The check is
    /// made once per handler, when the `Logger` is created, not per message; a journald that
    /// goes away later is caught per message by ``log(event:)``.
    public static func makeHandler(
        label: String, metadataProvider: Logger.MetadataProvider?
    ) -> any LogHandler {
        if isJournalReachable() {
            return JournaldLogHandler(label: label, metadataProvider: metadataProvider)
        }
        return StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
    }

    /// A handler for `label` with the bootstrapped metadata provider; see
    /// ``makeHandler(label:metadataProvider:)``.
    public static func makeHandler(label: String) -> any LogHandler {
        makeHandler(label: label, metadataProvider: LoggingSystem.metadataProvider)
    }
}
