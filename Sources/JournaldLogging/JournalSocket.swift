// The module's only file that calls Glibc and libsystemd directly.
import CSystemd
import Glibc

/// The journald native-protocol socket: whether it is live, and sending an entry to it.
enum JournalSocket {
    /// Where libsystemd sends entries; `sd_journal_sendv` has this path built in.
    static let defaultPath = "/run/systemd/journal/socket"

    /// Whether a process listens on the datagram socket at `path` and this process may write
    /// to it.
    ///
    /// Existence is not enough: a killed journald leaves its socket file behind. Connecting a
    /// datagram socket to it does not send anything but fails with `ECONNREFUSED` when nobody
    /// has it bound, so it tells a live journald from a stale file without blocking.
    static func isReachable(path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK,
            access(path, W_OK) == 0
        else { return false }

        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }

        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + 1)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        return result == 0
    }

    /// Sends the entry with `sd_journal_sendv`, returning its result: `0` or a negative errno.
    ///
    /// A `0` is not proof of delivery: libsystemd drops the entry and returns `0` when the
    /// socket file is missing, which is why the factory checks ``isReachable(path:)`` first.
    static func send(_ entry: JournalEntry) -> Int32 {
        entry.withIOVecs { vectors, count in sd_journal_sendv(vectors, count) }
    }
}
