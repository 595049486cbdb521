package import Dispatch

extension DispatchTime {
    /// The dispatch time `duration` from now, for `asyncAfter` and semaphore timeouts.
    ///
    /// Negative durations count as zero, and durations are capped at a day so the
    /// nanoseconds cannot overflow (no wait here is meant to be that long).
    package static func now(after duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = min(max(duration, .zero), .seconds(86_400)).components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
