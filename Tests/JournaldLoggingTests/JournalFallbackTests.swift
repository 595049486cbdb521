import Foundation
import JournaldLogging
import Logging
import Testing
import TestSupport

/// Why the tests that hide journald in a namespace of their own are skipped.
let noUserNamespaces: Comment = "needs unshare --user --map-root-user --mount, to hide journald in a mount namespace of its own; user namespaces are not allowed here"

@Suite("Without a live journald", .ownThread)
struct JournalFallbackTests {
    @Test("A missing socket path is not reachable")
    func missingSocket() throws {
        let directory = try TemporaryDirectory()
        #expect(!JournaldLogHandler.isJournalReachable(socketPath: directory.file("socket").path))
    }

    @Test("A regular file is not reachable")
    func regularFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("socket").path
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(!JournaldLogHandler.isJournalReachable(socketPath: path))
    }

    @Test("A stale socket file that nobody listens on is not reachable")
    func staleSocket() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("socket").path
        let made = try run("python3", [
            "-c",
            "import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.close()",
            path,
        ])
        try #require(made.status == 0, "\(made.output)")
        var status = stat()
        try #require(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK)
        #expect(!JournaldLogHandler.isJournalReachable(socketPath: path))
    }

    @Test("A socket something listens on is reachable")
    func listeningSocket() throws {
        // Guards the checks above: they must fail for the socket's state, not for any socket.
        let directory = try TemporaryDirectory()
        let path = directory.file("socket").path
        let listener = try Subprocess(
            "python3",
            [
                "-c",
                "import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); print('bound', flush=True); sys.stdin.read()",
                path,
            ],
            input: .pipe)
        defer {
            listener.closeInput()
            listener.wait()
        }
        _ = listener.nextLine()  // "bound"
        #expect(JournaldLogHandler.isJournalReachable(socketPath: path))
    }

    @Test("With no journal socket the factory's handler writes to stderr", .enabled(if: Privileges.canCreateUserNamespaces, noUserNamespaces))
    func factoryWithoutSocket() throws {
        let testID = UUID().uuidString
        let result = try runWorkerWithoutJournal(
            setUp: "test ! -e /run/systemd/journal/socket", mode: "factory",
            message: "no journal \(testID)", pairs: ["TEST_ID=\(testID)"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("no journal \(testID)"))
        #expect(result.output.contains("error"))
        #expect(result.output.contains("TEST_ID=\(testID)"))
    }

    @Test("With a stale journal socket the factory's handler writes to stderr", .enabled(if: Privileges.canCreateUserNamespaces, noUserNamespaces))
    func factoryWithStaleSocket() throws {
        let testID = UUID().uuidString
        let result = try runWorkerWithoutJournal(
            setUp: staleSocketSetUp, mode: "factory", message: "stale journal \(testID)", pairs: ["TEST_ID=\(testID)"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("stale journal \(testID)"))
    }

    @Test("A handler made directly writes a message journald refuses to stderr", .enabled(if: Privileges.canCreateUserNamespaces, noUserNamespaces))
    func failedSendFallsBack() throws {
        // The stale socket makes sd_journal_sendv return -ECONNREFUSED for this very message.
        let testID = UUID().uuidString
        let result = try runWorkerWithoutJournal(
            setUp: staleSocketSetUp, mode: "direct", message: "refused \(testID)", pairs: ["TEST_ID=\(testID)"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("refused \(testID)"))
        #expect(result.output.contains("TEST_ID=\(testID)"))
    }
}
