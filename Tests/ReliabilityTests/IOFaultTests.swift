import Foundation
import Glibc
@testable import Preferences
import Testing
import TestSupport

/// Real I/O faults, from a private mount namespace (`unshare -rm`): a full tmpfs and a
/// read-only bind mount. Nothing is mounted outside the namespace, and it ends with the worker.
// An ordinary user mounts in a user namespace of its own, which some kernels and containers
// forbid; unshare missing is not a reason to skip (below).
@Suite(
    "I/O faults", .ownThread,
    .enabled(if: Privileges.canCreateUserNamespaces, "needs user namespaces (unshare --user --map-root-user) to mount without root"))
struct IOFaultTests {
    /// Runs the worker inside a new mount namespace after `setup` (shell commands, with the
    /// preferences directory as `$1`), and returns its output lines.
    func inNamespace(_ fixture: ReliabilityFixture, setup: String, _ arguments: [String]) throws -> (lines: [String], errors: String) {
        let unshare = try #require(installedProgram("unshare"), "util-linux unshare is needed: run Tests/Scripts/install-dependencies.sh")
        let script = "\(setup) && shift && exec \"$@\""
        let worker = try Subprocess(
            unshare, ["-rm", "sh", "-c", script, "sh", fixture.userDirectory, workerPath] + arguments, environment: fixture.environment)
        let status = worker.wait()
        let output = worker.output
        let errors = worker.errorOutput
        #expect(status == 0, "\(output)\n\(errors)")
        return (output.split(separator: "\n").map(String.init), errors)
    }

    @Test("a real ENOSPC: old file byte-identical, temp file gone, error surfaced and logged once, every key written once space is freed")
    func diskFull() throws {
        let fixture = try ReliabilityFixture()
        let (lines, errors) = try inNamespace(
            fixture, setup: "mount -t tmpfs -o size=128k,mode=0700 tmpfs \"$1\"", ["enospc", "com.example.full", fixture.userDirectory])
        let text = lines.joined(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("flush 1 failed io errno \(ENOSPC)") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("flush 2 failed io errno \(ENOSPC)") }, "\(text)")
        #expect(lines.contains("identical true"), "\(text)")
        #expect(lines.filter { $0 == "temporaries 0" }.count == 2, "\(text)")
        #expect(lines.contains("pending 65536"), "\(text)")
        #expect(lines.contains("flush after freeing succeeded"), "\(text)")
        #expect(lines.contains("keys 51 big 65536"), "\(text)")
        // Two failed explicit flushes and the background one: one entry in the log.
        #expect(lines.contains("warnings 1"), "\(text)\n\(errors)")
        figure("ENOSPC in a 128 KiB tmpfs", lines.filter { $0.hasPrefix("flush") || $0.hasPrefix("warnings") || $0.hasPrefix("keys") }.joined(separator: "; "))
    }

    @Test("a read-only directory: reads work, writes fail with EROFS, warnings rate-limited")
    func readOnlyDirectory() throws {
        let fixture = try ReliabilityFixture()
        let store = try fixture.store("com.example.ro")
        store.set("on disk", forKey: "existing")
        try store.flush()
        let (lines, errors) = try inNamespace(
            fixture, setup: "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\"",
            ["read-only", "com.example.ro", fixture.userDirectory, "50"])
        let text = lines.joined(separator: "\n")
        #expect(lines.contains("read on disk"), "\(text)")
        #expect(lines.contains("outcome io errno \(EROFS): 50"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("error ") && $0.contains("old file is unchanged") }, "\(text)")
        #expect(lines.contains("still reads 49 and on disk"), "\(text)")
        #expect(lines.contains("temporaries 0"), "\(text)")
        #expect(lines.contains("warnings 1"), "50 failed flushes must not log 50 entries:\n\(text)\n\(errors)")
        #expect(try fixture.onDisk("com.example.ro") == ["existing": "on disk"])
        figure("read-only directory, 50 flushes", lines.filter { $0.hasPrefix("outcome") || $0.hasPrefix("warnings") }.joined(separator: "; "))
    }
}
