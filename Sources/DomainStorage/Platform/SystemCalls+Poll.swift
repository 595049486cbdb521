import Glibc
package import SystemPackage

extension SystemCalls {
    /// Waits until at least one of `descriptors` can be read without blocking, or the timeout
    /// passes (`poll` with `POLLIN`).
    ///
    /// A descriptor whose other end was closed, or that reports an error, counts as readable:
    /// the read that follows says what happened. A signal ends the wait early with nothing
    /// ready, which callers that loop treat like a timeout.
    ///
    /// - Parameter timeout: How long to wait at most, rounded up to whole milliseconds so a
    ///   short wait never becomes a busy loop; nil waits without limit.
    /// - Returns: For each descriptor, in order, whether it is ready.
    package static func waitForInput(_ descriptors: [FileDescriptor], timeout: Duration?) throws(Errno) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        var milliseconds: Int32 = -1
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let total = max(0, seconds) * 1000 + (max(0, attoseconds) + 999_999_999_999_999) / 1_000_000_000_000_000
            milliseconds = Int32(clamping: total)
        }
        let result = Glibc.poll(&entries, nfds_t(entries.count), milliseconds)
        if result < 0 {
            let error = currentErrno()
            if error == .interrupted { return Array(repeating: false, count: descriptors.count) }
            throw error
        }
        let readiness = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        return entries.map { $0.revents & readiness != 0 }
    }
}
