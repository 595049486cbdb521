import Foundation
import PropertyList
import Testing
import TestSupport

/// `defaults` in a preferences directory that follows a newer protocol version than it knows
/// (issue 39, item 2): it reads, refuses every write with both versions named, and changes
/// nothing there.
@Suite("defaults and protocol versions", .ownThread)
struct ProtocolVersionToolTests {
    /// Every name under `root` with its size, mode and modification time.
    static func listing(_ root: String) throws -> [String] {
        let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return try names.sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + name)
            return "\(name) \(attributes[.size] ?? "") \(attributes[.posixPermissions] ?? "") \(attributes[.modificationDate] ?? "")"
        }
    }

    @Test("reads answer, writes fail naming both versions, and the directory is unchanged")
    func newerDirectory() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.app", "greeting", "hi"])
        try tool.output(["write", "com.example.app", "greeting", "hello"])
        try Data("2\n".utf8).write(to: URL(fileURLWithPath: tool.userDirectory + "/.swift-preferences-protocol"))
        let before = try Self.listing(tool.userDirectory)

        #expect(try tool.output(["read", "com.example.app", "greeting"]) == "hello\n")
        for arguments in [
            ["write", "com.example.app", "greeting", "bye"], ["delete", "com.example.app", "greeting"],
            ["write", "com.example.other", "a", "1"], ["undo", "com.example.app"],
        ] {
            let result = try tool.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains("follows protocol version 2"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("knows protocol version 1"), "\(arguments): \(result.stderr)")
        }
        #expect(try Self.listing(tool.userDirectory) == before)
        #expect(try tool.onDisk("com.example.app") == ["greeting": .string("hello")])
    }
}
