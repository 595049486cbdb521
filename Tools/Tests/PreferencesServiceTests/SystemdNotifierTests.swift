import Foundation
import Glibc
import PreferencesService
import Testing
import TestSupport

/// A datagram socket bound at a path, standing in for systemd's notification socket.
private final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init(in directory: borrowing TemporaryDirectory) throws {
        path = directory.file("notify").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        // A message that never comes must fail the test, not hang it.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// The next datagram as text; nil if none arrives within 5 s.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }
}

/// The notifier against a real socket: libsystemd reads `NOTIFY_SOCKET` from the process
/// environment, so these tests set it and run one at a time.
@Suite("SystemdNotifier sends sd_notify messages", .serialized)
struct SystemdNotifierTests {
    /// Runs `body` with `NOTIFY_SOCKET` (and any `extra` variables) set, restoring the
    /// environment afterwards.
    private func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) rethrows {
        let saved = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try body()
    }

    @Test("each call sends exactly its assignments, in order")
    func messages() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(in: directory)
        withEnvironment(["NOTIFY_SOCKET": socket.path]) {
            let notifier = SystemdNotifier()
            #expect(notifier.isEnabled)
            #expect(notifier.status("Greeting \"Hi\" every 5 s"))
            #expect(socket.receive() == "STATUS=Greeting \"Hi\" every 5 s")
            #expect(notifier.ready())
            #expect(socket.receive() == "READY=1")
            #expect(notifier.stopping())
            #expect(socket.receive() == "STOPPING=1")
            #expect(notifier.watchdog())
            #expect(socket.receive() == "WATCHDOG=1")
            #expect(notifier.send(["STATUS=a", "ERRNO=5"]))
            #expect(socket.receive() == "STATUS=a\nERRNO=5")
        }
    }

    @Test("RELOADING=1 carries the CLOCK_MONOTONIC time in microseconds")
    func reloading() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(in: directory)
        try withEnvironment(["NOTIFY_SOCKET": socket.path]) {
            func monotonicMicroseconds() -> UInt64 {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
            }
            let before = monotonicMicroseconds()
            #expect(SystemdNotifier().reloading())
            let after = monotonicMicroseconds()
            let message = try #require(socket.receive())
            let lines = message.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(message)")
            #expect(lines.first == "RELOADING=1")
            let stamp = try #require(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil }, "\(message)")
            #expect(before <= stamp && stamp <= after)
        }
    }

    @Test("a status with line breaks stays one assignment")
    func statusLineBreaks() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(in: directory)
        withEnvironment(["NOTIFY_SOCKET": socket.path]) {
            #expect(SystemdNotifier().status("two\nlines"))
            #expect(socket.receive() == "STATUS=two lines")
        }
    }

    @Test("without NOTIFY_SOCKET every call is a no-op that says it sent nothing")
    func withoutSocket() {
        let saved = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"]
        unsetenv("NOTIFY_SOCKET")
        defer { if let saved { setenv("NOTIFY_SOCKET", saved, 1) } }
        let notifier = SystemdNotifier()
        #expect(!notifier.isEnabled)
        #expect(!notifier.ready())
        #expect(!notifier.reloading())
        #expect(!notifier.status("x"))
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, for this process only")
    func watchdogInterval() {
        withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": String(getpid())]) {
            #expect(SystemdNotifier().watchdogInterval == .milliseconds(1500))
        }
        withEnvironment(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"]) {
            #expect(SystemdNotifier().watchdogInterval == nil)
        }
    }
}
