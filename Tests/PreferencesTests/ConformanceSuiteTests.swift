import Foundation
import Testing
import TestSupport

/// The language-neutral conformance suite (Tests/Conformance/, rules in PROTOCOL.md) run
/// against this library, through `PreferencesWorker conformance-adapter`: real processes, a
/// private tree per case, the files checked by a runner that is not Swift.
@Suite("On-disk protocol conformance", .ownThread)
struct ConformanceSuiteTests {
    static let runner = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Conformance/run.py").path

    @Test(
        "the Swift adapter passes every case of the conformance suite",
        .enabled(if: installedProgram("python3") != nil, "python3 is not installed; the suite's runner is a Python script"))
    func suitePasses() throws {
        let python = try #require(installedProgram("python3"))
        let run = try Subprocess.run(python, [Self.runner, "--", workerPath, "conformance-adapter"], errors: .mergedWithOutput)
        let output = run.output
        // One line per case: "pass NAME [...]", "fail NAME [...]" (its reason on the lines
        // after), "skip NAME [...]: why".
        let failed = output.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("fail ") else { return nil }
            return line.dropFirst(5).split(separator: " ").first.map(String.init)
        }
        #expect(output.contains(" passed, "), "the runner did not finish:\n\(output)")
        for name in failed {
            Issue.record("conformance case \(name) failed:\n\(output)")
        }
        // Exit status 1 is a failed case, reported above; anything else is the runner's own trouble.
        #expect(run.terminationStatus == (failed.isEmpty ? 0 : 1), "the runner exited \(run.terminationStatus):\n\(output)")
    }
}
