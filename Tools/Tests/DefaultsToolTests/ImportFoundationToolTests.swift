import Foundation
import PropertyList
import Testing
import TestSupport

/// `defaults import-foundation`, and the import a first open makes as `defaults` shows it
/// (issue 38, item 2).
@Suite("defaults import-foundation", .ownThread)
struct ImportFoundationToolTests {
    /// Puts an XML file where corelibs-Foundation keeps `domain` for the fixture's `HOME`.
    @discardableResult
    static func foundationFile(_ tool: ToolFixture, _ domain: String, _ values: [String: Any], mode: Int = 0o600) throws -> String {
        let directory = tool.homeDirectory + "/.config"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(domain).plist"
        try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test("a first read imports Foundation's file, and history says where the values came from")
    func firstReadImports() throws {
        let tool = try ToolFixture()
        let source = try Self.foundationFile(tool, "com.example.app", ["greeting": "hello"])
        #expect(try tool.output(["read", "com.example.app", "greeting"]) == "hello\n")
        let lines = try tool.output(["history", "com.example.app"]).split(separator: "\n").map(String.init)
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix("changed: greeting  (imported from corelibs-Foundation's \(source))") == true, "\(lines)")
        let json = try tool.output(["history", "--json", "com.example.app"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(array.first?["origin"] as? String == "imported from corelibs-Foundation's \(source)")
    }

    @Test("a refused Foundation file is named on standard error when a read first opens the domain")
    func refusalIsShown() throws {
        let tool = try ToolFixture()
        let source = try Self.foundationFile(tool, "com.example.app", ["greeting": "hello"], mode: 0o666)
        let result = try tool.run(["read", "com.example.app", "greeting"])
        #expect(result.status == 1, "the domain is still empty")
        #expect(result.stderr.contains("warning: corelibs-Foundation's settings \(source) were not imported"), "\(result.stderr)")
        #expect(try tool.onDisk("com.example.app") == nil)
    }

    @Test("on demand it adds the keys a domain lacks, keeps the ones it has, and says so")
    func mergesOnDemand() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.app", "a", "ours"])
        let source = try Self.foundationFile(tool, "com.example.app", ["a": "foundation", "b": "new", "c": "more"])
        let output = try tool.output(["import-foundation", "com.example.app"])
        #expect(output == "imported 2 keys into com.example.app from \(source): b, c; kept 1 this domain already had: a\n")
        #expect(try tool.onDisk("com.example.app") == ["a": .string("ours"), "b": .string("new"), "c": .string("more")])
        // Again: nothing left to import.
        #expect(try tool.output(["import-foundation", "com.example.app"]) == "imported 0 keys into com.example.app from \(source); kept 1 this domain already had: a\n")
    }

    @Test("--all imports every domain Foundation has, names a refused file, and fails for it")
    func allDomains() throws {
        let tool = try ToolFixture()
        try Self.foundationFile(tool, "com.example.one", ["k": 1])
        let refused = try Self.foundationFile(tool, "com.example.two", ["k": 2], mode: 0o666)
        let result = try tool.run(["import-foundation", "--all"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("imported 1 key into com.example.one from "), "\(result.stdout)")
        #expect(result.stderr.contains("com.example.two") && result.stderr.contains(refused), "\(result.stderr)")
        #expect(try tool.onDisk("com.example.one") == ["k": .integer(1)])
        #expect(try tool.onDisk("com.example.two") == nil, "nothing written for the refused file")
    }

    @Test("a domain or --all, not both and not neither; a domain Foundation has no file for fails")
    func badInvocations() throws {
        let tool = try ToolFixture()
        #expect(try tool.run(["import-foundation"]).status != 0)
        #expect(try tool.run(["import-foundation", "--all", "com.example.app"]).status != 0)
        let missing = try tool.run(["import-foundation", "com.example.none"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no settings file for com.example.none"), "\(missing.stderr)")
        let empty = try tool.output(["import-foundation", "--all"])
        #expect(empty == "corelibs-Foundation has no settings files here; nothing to import\n")
    }
}
