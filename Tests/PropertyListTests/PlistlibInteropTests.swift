import Foundation
import PropertyList
import TestSupport
import Testing

/// Our codec against CPython's `plistlib`, both directions, over every type.
@Suite("Interop with CPython's plistlib", .ownThread)
struct PlistlibInteropTests {
    let script = fixturesDirectory.appendingPathComponent("plistlib_interop.py").path

    @Test("plistlib reads every file we write to the values it expects")
    func theirsReadsOurs() throws {
        let directory = try TemporaryDirectory()
        let encoder = BinaryPropertyListEncoder()
        for (name, value) in InteropCases.all {
            let bytes = try encoder.encode(value)
            try Data(bytes).write(to: directory.file(name + ".bplist"))
        }
        let result = try run("python3", [script, "check", directory.url.path])
        #expect(result.status == 0, "plistlib disagreed:\n\(result.output)")
        #expect(result.output.contains("checked \(InteropCases.all.count) cases, 0 mismatched"), "\(result.output)")
    }

    @Test("we read every file plistlib writes to the values we expect")
    func oursReadsTheirs() throws {
        let directory = try TemporaryDirectory()
        let result = try run("python3", [script, "write", directory.url.path])
        try #require(result.status == 0, "plistlib failed to write: \(result.output)")
        let decoder = BinaryPropertyListDecoder()
        let expected = InteropCases.all.filter { !InteropCases.oursOnly.contains($0.key) }
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(written.count == expected.count, "plistlib wrote \(written.count) files, expected \(expected.count)")
        for (name, value) in expected {
            let data = try Data(contentsOf: directory.file(name + ".bplist"))
            let decoded = try decoder.decode(data)
            #expect(isIdentical(decoded, value), "\(name): decoded \(String(describing: decoded).prefix(200))")
        }
    }

    @Test("we write repeated containers in no more bytes than plistlib does")
    func sharedContainersNoLarger() throws {
        let directory = try TemporaryDirectory()
        let result = try run("python3", [script, "write", directory.url.path])
        try #require(result.status == 0, "plistlib failed to write: \(result.output)")
        let encoder = BinaryPropertyListEncoder()
        for name in InteropCases.sharedContainers.sorted() {
            let ours = try encoder.encode(try #require(InteropCases.all[name]))
            let theirs = try Data(contentsOf: directory.file(name + ".bplist"))
            #expect(ours.count <= theirs.count, "\(name): ours \(ours.count) bytes, plistlib's \(theirs.count)")
        }
    }
}
