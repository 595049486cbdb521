import Foundation
import TestSupport
import Testing

/// Test support's programs: what a test that talks to a program may rely on.
@Suite("Programs the tests run", .ownThread)
struct SubprocessTests {
    /// Without SIGPIPE blocked around the write, the kernel's SIGPIPE would end this whole
    /// test process here, every test in it with it.
    @Test("writing to a program that has exited throws, and the test process lives on")
    func writeToAnExitedProgram() throws {
        let program = try Subprocess("/bin/true", [], input: .pipe)
        #expect(program.wait() == 0)
        #expect(throws: (any Error).self) { try program.send("anyone there?") }
        // The signal was taken back, not left pending for the next thread to unblock it.
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0)
    }
}
