import Foundation
import PropertyList
import TestSupport
import Testing

/// Writes go through the library's lock and merge: tools running at once lose nothing.
@Suite("defaults writing concurrently", .ownThread)
struct ConcurrentWriteTests {
    /// Starts every command at once and waits for all of them.
    func runAtOnce(_ tool: ToolFixture, _ commands: [[String]]) throws {
        let processes = try commands.map { arguments in
            try Subprocess(defaultsPath, arguments, environment: tool.environment)
        }
        for process in processes {
            #expect(process.wait() == 0, "defaults \(process.arguments) failed")
        }
    }

    @Test("8 tools writing 8 different keys at once leave all 8")
    func distinctKeys() throws {
        let tool = try ToolFixture()
        try runAtOnce(tool, (0..<8).map { ["write", "com.example.race", "k\($0)", "-int", "\($0)"] })
        let disk = try #require(try tool.onDisk("com.example.race"))
        #expect(disk == Dictionary(uniqueKeysWithValues: (0..<8).map { ("k\($0)", PropertyListValue.integer($0)) }))
    }

    @Test("8 tools appending to one array at once leave 8 elements (-array-add is atomic)")
    func arrayAdd() throws {
        let tool = try ToolFixture()
        try runAtOnce(tool, (0..<8).map { ["write", "com.example.race", "list", "-array-add", "-int", "\($0)"] })
        let list = try #require(try tool.onDisk("com.example.race")?["list"]?.arrayValue)
        #expect(Set(list) == Set((0..<8).map { PropertyListValue.integer($0) }))
        #expect(list.count == 8)
    }

    @Test("read with no domain prints every domain, the global one included")
    func readEverything() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.b", "k", "-int", "1"])
        try tool.output(["write", "-g", "g", "yes"])
        #expect(try tool.output(["read"]) == """
            {
                NSGlobalDomain =     {
                    g = yes;
                };
                "com.b" =     {
                    k = 1;
                };
            }

            """)
    }
}
