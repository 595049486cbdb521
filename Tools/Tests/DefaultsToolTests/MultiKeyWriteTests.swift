import Foundation
import PropertyList
import Testing
import TestSupport

/// `defaults write DOMAIN K1 V1 K2 V2 …`: several keys in one commit.
@Suite("defaults write of several keys", .ownThread)
struct MultiKeyWriteTests {
    @Test("several pairs, typed and untyped, land in one write")
    func severalPairs() throws {
        let tool = try ToolFixture()
        let domain = "com.example.multi"
        try tool.output(["write", domain, "kept", "old"])
        try tool.output(["write", domain, "width", "-int", "1280", "height", "800", "title", "a b", "on", "-bool", "yes"])
        let disk = try #require(try tool.onDisk(domain))
        #expect(disk["width"] == 1280)
        #expect(disk["height"] == "800", "untyped words are strings, as on Apple's defaults")
        #expect(disk["title"] == "a b")
        #expect(disk["on"] == true)
        #expect(disk["kept"] == "old")
    }

    @Test("a pair without a value, or a container flag among pairs, is refused and changes nothing", arguments: [
        ["width", "1", "height"],
        ["width", "1", "list", "-array", "a", "b"],
        ["width", "1", "height", "-int"],
    ])
    func badPairs(_ words: [String]) throws {
        let tool = try ToolFixture()
        let domain = "com.example.multi"
        try tool.output(["write", domain, "width", "0"])
        let path = tool.userDirectory + "/\(domain).plist"
        let before = FileManager.default.contents(atPath: path)
        let result = try tool.run(["write", domain] + words)
        #expect(result.status == 1)
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test("one value that breaks the schema refuses every pair: the file stays byte-identical")
    func schemaRefusesAll() throws {
        let tool = try ToolFixture()
        let domain = "com.example.multi"
        try tool.installSchema(["volume": .dictionary(["Type": "integer", "Default": 5, "Minimum": 0, "Maximum": 10])], for: domain)
        try tool.output(["write", domain, "volume", "3"])
        let path = tool.userDirectory + "/\(domain).plist"
        let before = FileManager.default.contents(atPath: path)
        let result = try tool.run(["write", domain, "free", "x", "volume", "11"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("volume"))
        #expect(FileManager.default.contents(atPath: path) == before)
        try tool.output(["write", domain, "free", "x", "volume", "7"])
        #expect(try tool.onDisk(domain)?["volume"] == 7)
    }
}
