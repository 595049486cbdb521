/// Something the greeter's event loop reacts to, in the order it happened.
///
/// Everything that touches the greeter's state goes through one `AsyncStream` of these, so
/// one loop owns the state and no locks are needed.
enum GreeterEvent: Sendable {
    /// Time to log the greeting.
    case tick
    /// The store says `greeting` or `interval` changed (a `defaults write`, another process).
    case settingsChanged
    /// SIGHUP (`systemctl --user reload`): re-read the files now.
    case reloadRequested
    /// Time to tell the watchdog the loop is alive.
    case watchdog
    /// Graceful shutdown (SIGTERM) or cancellation.
    case stop
}
