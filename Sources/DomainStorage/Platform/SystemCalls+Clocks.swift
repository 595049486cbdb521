import Glibc

extension SystemCalls {
    /// Blocks the calling thread for a duration (`nanosleep`), resuming after signals.
    package static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while Glibc.nanosleep(&request, &remaining) != 0 && Glibc.errno == EINTR {
            request = remaining
        }
    }

    /// The current wall-clock time in nanoseconds since 1970 (`clock_gettime(CLOCK_REALTIME)`),
    /// the clock file timestamps come from.
    package static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        _ = Glibc.clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The resolution of the coarse wall clock (`clock_getres(CLOCK_REALTIME_COARSE)`), in
    /// nanoseconds: how far apart two file timestamps taken from it can be and still be equal.
    package static func coarseClockResolution() -> Int64 {
        var resolution = timespec()
        guard Glibc.clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 else { return 10_000_000 }
        return Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
    }

    /// The current wall-clock time in UTC, as calendar fields (`time`, `gmtime_r`).
    package static func utcNow() -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var now = Glibc.time(nil)
        var fields = tm()
        _ = Glibc.gmtime_r(&now, &fields)
        return (
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday),
            Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec)
        )
    }
}
