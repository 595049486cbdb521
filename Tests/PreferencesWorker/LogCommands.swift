// The worker's command for the journald handler's tests, which need a process of their own:
// one started in a mount namespace without a live journal socket, whose standard error the
// test captures to see the fallback.
import JournaldLogging
import Logging

/// `log factory|direct MESSAGE [KEY=VALUE...]`: logs MESSAGE once at `error` with the pairs as
/// metadata, through `JournaldLogHandler.makeHandler` (`factory`, which checks the socket
/// first) or a `JournaldLogHandler` made directly (`direct`, which only falls back when a send
/// fails), then exits.
func logMessage(_ arguments: [String]) {
    guard arguments.count >= 2, ["factory", "direct"].contains(arguments[0]) else {
        fail("log factory|direct MESSAGE [KEY=VALUE...]")
    }
    var metadata: Logger.Metadata = [:]
    for pair in arguments.dropFirst(2) {
        guard let equals = pair.firstIndex(of: "=") else { fail("not KEY=VALUE: \(pair)") }
        metadata[String(pair[..<equals])] = .string(String(pair[pair.index(after: equals)...]))
    }
    let logger =
        arguments[0] == "factory"
        ? Logger(label: "preferences.worker") { JournaldLogHandler.makeHandler(label: $0) }
        : Logger(label: "preferences.worker") { JournaldLogHandler(label: $0) }
    logger.error("\(arguments[1])", metadata: metadata)
}
