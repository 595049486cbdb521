import CSystemd
import Foundation

/// Tells the service manager (systemd) how the service is doing, through `sd_notify(3)`.
///
/// ```swift
/// let notifier = SystemdNotifier()
/// notifier.status("Greeting \"Hello\" every 5 s")
/// notifier.ready()                  // Type=notify: `systemctl start` returns now
/// notifier.reloading()              // before applying a new configuration…
/// notifier.ready()                  // …and after it
/// notifier.stopping()
/// ```
///
/// systemd hands the socket to the service in `NOTIFY_SOCKET`. Outside systemd (a shell, a
/// test) that variable is unset and every call is a no-op that returns `false`, so a
/// program can notify unconditionally. libsystemd reads `NOTIFY_SOCKET` from the process
/// environment at each call, not from any value passed here.
///
/// This is the only file in `PreferencesService` that calls libsystemd. Its notify function
/// with a format string, `sd_notifyf`, is variadic and cannot be called from Swift, so each
/// message is built here and sent with `sd_notify`.
public struct SystemdNotifier: Sendable {
    /// Creates a notifier; it sends to the socket named by `NOTIFY_SOCKET`, if any.
    public init() {}

    /// Whether a service manager asked for notifications (`NOTIFY_SOCKET` is set).
    public var isEnabled: Bool {
        ProcessInfo.processInfo.environment["NOTIFY_SOCKET"].map { !$0.isEmpty } ?? false
    }

    /// Says start-up or a reload is finished (`READY=1`).
    ///
    /// With `Type=notify`, `systemctl start` returns, and the unit becomes active, only now.
    @discardableResult
    public func ready() -> Bool {
        send(["READY=1"])
    }

    /// Sets the one-line status `systemctl status` shows (`STATUS=…`, the unit's
    /// `StatusText`).
    ///
    /// Line breaks would end the assignment early, so they are replaced by spaces.
    @discardableResult
    public func status(_ text: String) -> Bool {
        let line = text.map { $0.isNewline ? " " : $0 }
        return send(["STATUS=" + String(line)])
    }

    /// Says the service is reloading its configuration (`RELOADING=1`), with the
    /// `CLOCK_MONOTONIC` time in microseconds (`MONOTONIC_USEC=`) that systemd 253 and later
    /// require to match the reload to its request. Follow it with ``ready()``.
    @discardableResult
    public func reloading() -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        return send(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"])
    }

    /// Says the service is shutting down (`STOPPING=1`).
    @discardableResult
    public func stopping() -> Bool {
        send(["STOPPING=1"])
    }

    /// Tells the watchdog the service is alive (`WATCHDOG=1`); send it at least every
    /// ``watchdogInterval`` when `WatchdogSec=` is set, or systemd restarts the service.
    @discardableResult
    public func watchdog() -> Bool {
        send(["WATCHDOG=1"])
    }

    /// How often systemd expects ``watchdog()``: half of `WatchdogSec=` (the margin
    /// `sd_watchdog_enabled(3)` recommends), or nil when no watchdog is set for this process.
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(microseconds / 2)
    }

    /// Sends `assignments` (`NAME=value`, one per line) as one notification.
    ///
    /// - Returns: true if it was sent; false when `NOTIFY_SOCKET` is unset or the send
    ///   failed (a service must keep running either way, so there is nothing to throw).
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        sd_notify(0, assignments.joined(separator: "\n")) > 0
    }
}
