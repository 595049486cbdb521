import Foundation
import Glibc
import Testing
import TestSupport

@testable import Preferences

// strace attaches to the test's own thread, which Yama's ptrace_scope 1 (Ubuntu's default)
// refuses to an ordinary user; strace missing is not a reason to skip (below).
@Suite(
    "Domain file writes under injected faults", .ownThread,
    .enabled(if: Privileges.canTraceOwnThreads, "needs kernel.yama.ptrace_scope 0, or CAP_SYS_PTRACE, for strace to attach to the test's thread"))
struct DomainFileFaultTests {
    @Test(
        "a failing write, fsync or rename leaves the old file byte-identical and no temporary file",
        arguments: [("write", "ENOSPC", ENOSPC), ("fsync", "EIO", EIO), ("rename", "ENOSPC", ENOSPC)])
    func failedStep(syscall: String, errorName: String, errno expected: Int32) throws {
        // The test scripts install strace; a machine without it must fail here, not skip.
        try #require(installedProgram("strace") != nil, "strace is not installed: run Tests/Scripts/install-dependencies.sh")
        let fixture = try DomainFileFixture()
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }
        let before = try #require(FileSnapshot(fixture.file.path))

        let (outcome, trace) = try withInjectedFault(syscall, error: errorName) {
            Result { () throws(PreferencesError) in
                try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }
            }
        }

        let error: PreferencesError? = if case .failure(let error) = outcome { error } else { nil }
        #expect(error?.code == .io)
        #expect(error?.errno == expected, "\(String(describing: error))")
        #expect(error?.description.contains("unchanged") == true, "\(String(describing: error))")
        let after = try #require(FileSnapshot(fixture.file.path))
        if syscall == "rename" {
            // Only the rename is left when the replaced file is linked into the history, and
            // taking that link back when the rename fails moves the file's status-change
            // time (its link count went up and down); everything else is as it was.
            #expect(after.unchangedApartFromStatusChange(since: before))
        } else {
            #expect(after == before)
        }
        // The history directory is opened (and created) before the new file is written.
        #expect(fixture.entries == [".com.example.plist.history", ".com.example.plist.lock", "com.example.plist"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.file.directory + "/.com.example.plist.history").isEmpty)
        // The fault hit exactly one call: in particular a failed fsync is never retried.
        #expect(trace.count == 1, "\(trace)")
        // With the fault gone, the same update succeeds.
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }
        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1, "b": 2])
    }
}
