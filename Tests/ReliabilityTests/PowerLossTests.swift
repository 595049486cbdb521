import Foundation
import TestSupport
import Testing

/// Power loss at every point of the write path (`Tests/Scripts/power-loss.sh`, which says
/// how states are recorded and built): the quick runs here, of the write path and of a purge;
/// the long ones by the script.
///
/// Not serialized: each run works in a directory of its own (the script's `mkdtemp`) and its
/// workers in their own homes, and one after another the five runs were the last half-minute
/// of the library's test run, with a core idle.
@Suite(
    "Power loss at every point of the write path", .ownThread,
    .enabled(if: installedProgram("strace") != nil, "needs strace to record the workload: run Tests/Scripts/install-dependencies.sh"))
struct PowerLossTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// How long a run may take before it is killed and fails: far longer than the quick run
    /// takes on a loaded two-core machine, so it bounds only a hang.
    static let timeout: Duration = .seconds(1800)

    /// Runs the script with `options` on the built worker: (exit status, output).
    func run(_ options: [String]) throws -> (status: Int32, output: String) {
        let script = Self.root.appendingPathComponent("Tests/Scripts/power-loss.sh").path
        let finished = try Subprocess.run(
            "/bin/bash", [script] + options + [builtProductsDirectory.path], errors: .mergedWithOutput, timeout: Self.timeout)
        return (finished.terminationStatus, finished.output)
    }

    @Test("every crash state of two writers' flushes and transactions opens, keeps every flushed value and mixes no commits")
    func everyStateRecovers() throws {
        let (status, output) = try run(["--quick"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("power-loss: 0 failing states"), "\(output)")
        // The run checked something: states were built from a recorded workload.
        let states = output.split(separator: "\n").first { $0.contains("crash states") }
        #expect(states != nil && !(states?.hasPrefix("power-loss: 0 crash states") ?? true), "\(output)")
        figure("power loss, quick run", output.split(separator: "\n").filter { $0.hasPrefix("power-loss:") }.joined(separator: "; "))
    }

    /// The harness bites: with the new file's fsync before its rename taken out (a debug-only
    /// switch), or the directory's fsync after it, some crash state loses a flushed value.
    @Test("a missing sync is caught and the failing state named", arguments: ["file", "directory"])
    func missingSyncIsCaught(omitted: String) throws {
        let (status, output) = try run(["--quick", "--omit", omitted])
        #expect(status == 0, "\(output)")
        #expect(output.contains("the harness caught the omitted \(omitted) sync; first failing state: "), "\(output)")
        figure("power loss without the \(omitted) sync", output.split(separator: "\n").filter { $0.contains("caught") || $0.hasSuffix("failing states") }.joined(separator: "; "))
    }

    /// A purge (issue 32), cut at every call: `--workload purge --quick`, 4 commits.
    @Test("every crash state of a purge keeps each generation whole, with its secret or without, and none once it returned")
    func everyPurgeStateIsWhole() throws {
        let (status, output) = try run(["--workload", "purge", "--quick"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("power-loss: 0 failing states"), "\(output)")
        #expect(output.contains("2 states after it returned"), "\(output)")
        figure("power loss during a purge, quick run", output.split(separator: "\n").filter { $0.hasPrefix("power-loss:") }.joined(separator: "; "))
    }

    /// The purge run bites too: its copies' fsync and its directories' fsync are seen.
    @Test("a purge with a missing sync is caught", arguments: ["file", "directory"])
    func purgeMissingSyncIsCaught(omitted: String) throws {
        let (status, output) = try run(["--workload", "purge", "--quick", "--omit", omitted])
        #expect(status == 0, "\(output)")
        #expect(output.contains("the harness caught the omitted \(omitted) sync; first failing state: "), "\(output)")
        figure("power loss during a purge without the \(omitted) sync", output.split(separator: "\n").filter { $0.contains("caught") || $0.hasSuffix("failing states") }.joined(separator: "; "))
    }
}
