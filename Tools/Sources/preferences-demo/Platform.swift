// The one file of the demo that calls the C library directly.
import Glibc

/// Nanoseconds on `CLOCK_MONOTONIC`, which every process on the machine shares, so a time
/// taken in one process can be subtracted from a time taken in another.
func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Flushes standard output now, so lines from two processes interleave in time order
/// (`fflush(NULL)`: Swift 6 cannot name the C global `stdout`).
func flushOutput() {
    fflush(nil)
}
