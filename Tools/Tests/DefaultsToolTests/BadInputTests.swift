import Foundation
import PropertyList
import Testing
import TestSupport

/// Every kind of bad input: one clear message, a non-zero exit, and the domain's file left
/// byte-identical (same bytes, same inode).
@Suite("defaults bad input", .ownThread)
struct BadInputTests {
    /// A domain with a value, and its file's bytes and inode.
    func fixture() throws -> (ToolFixture, Data, Int) {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.safe", "keep", "-int", "1"])
        let path = tool.domainFile("com.example.safe")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
        return (tool, bytes, inode)
    }

    func expectUntouched(_ tool: ToolFixture, _ bytes: Data, _ inode: Int) throws {
        let path = tool.domainFile("com.example.safe")
        #expect(FileManager.default.contents(atPath: path) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
    }

    @Test(
        "a bad command exits non-zero with its message and leaves the domain untouched",
        arguments: [
            (["write", "com.example.safe", "keep", "-int", "abc"], "'abc' is not an integer"),
            (["write", "com.example.safe", "keep", "-float", "x1"], "'x1' is not a number"),
            (["write", "com.example.safe", "keep", "-bool", "maybe"], "'maybe' is not a boolean"),
            (["write", "com.example.safe", "keep", "-date", "yesterday"], "'yesterday' is not a date"),
            (["write", "com.example.safe", "keep", "-data", "0fb"], "odd number of digits"),
            (["write", "com.example.safe", "keep", "-data", "zz"], "is not a hex digit"),
            (["write", "com.example.safe", "keep", "-int"], "-int needs a value"),
            (["write", "com.example.safe", "keep", "-frob", "1"], "unknown type flag '-frob'"),
            (["write", "com.example.safe", "keep", "-string", "a", "b"], "unexpected 'b' after the value"),
            (["write", "com.example.safe", "keep", "{ a = 1; "], "malformed property list '{ a = 1; '"),
            (["write", "com.example.safe", "keep", "<dict><key>a</key></dict>"], "malformed XML property list"),
            (["write", "com.example.safe", "keep", "-dict", "k"], "the dictionary key 'k' has no value"),
            (["write", "com.example.safe", "(1, 2)"], "or a dictionary such as '{ key = value; }' to replace the domain"),
            (["write", "com.example.safe", "<array/>"], "is not a dictionary; only a dictionary can replace a domain"),
            (["write", "com.example.safe", "{ a = "], "malformed property list"),
            (["write", "com.example.safe", "keep", "-array-add", "x"], "-array-add needs an array, but keep is an integer"),
            (["write", "com.example.safe", "keep", "-dict-add", "k", "v"], "-dict-add needs a dictionary, but keep is an integer"),
            (["read", "com.example.safe", "--frobnicate"], "Unknown option '--frobnicate'"),
            (["-frob", "read", "com.example.safe"], "unknown option '-frob'"),
            (["frob", "com.example.safe"], "unknown verb 'frob'"),
            (["write", "bad name!", "k", "v"], "invalid domain 'bad name!'"),
            (["read", ".hidden"], "starts with a dot"),
            (["import", "com.example.safe", "-"], "is not a valid property list"),
        ])
    func badInput(arguments: [String], message: String) throws {
        let (tool, bytes, inode) = try fixture()
        let result = try tool.run(arguments, input: Array("{ unterminated".utf8))
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        try expectUntouched(tool, bytes, inode)
    }

    @Test("output that cannot be written (a full disk behind the redirection) fails with a message, not a trap",
          arguments: [["read", "com.example.full"], ["export", "com.example.full", "-"]])
    func unwritableOutput(arguments: [String]) throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.full", "k", "v"])
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let process = try Subprocess(defaultsPath, arguments, environment: tool.environment, output: .handle(full))
        process.wait()
        let message = process.errorOutput
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(message.contains("standard output could not be written"), "\(message)")
    }

    @Test("an invalid domain name gets a usage hint")
    func domainHint() throws {
        let tool = try ToolFixture()
        let result = try tool.run(["read", "bad name!"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Hint: a domain is a name such as com.example.app"))
    }

    @Test(
        "a corrupt domain file is reported and never replaced, by reads or writes",
        arguments: [
            ["read", "com.example.corrupt"], ["read", "com.example.corrupt", "k"], ["write", "com.example.corrupt", "k", "-int", "1"],
            ["delete", "com.example.corrupt", "k"], ["delete", "com.example.corrupt"], ["rename", "com.example.corrupt", "a", "b"],
            ["import", "com.example.corrupt", "-"], ["export", "com.example.corrupt", "-"], ["write", "com.example.corrupt", "{ a = 1; }"],
            ["write", "com.example.corrupt", "k", "-array-add", "1"],
        ])
    func corruptFile(arguments: [String]) throws {
        let tool = try ToolFixture()
        let garbage = Array("bplist00 this is not a property list".utf8)
        try tool.plant(garbage, domain: "com.example.corrupt")
        let path = tool.domainFile("com.example.corrupt")
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let result = try tool.run(arguments, input: Array("{ a = 1; }".utf8))
        #expect(result.status == 1)
        #expect(result.stderr.contains("com.example.corrupt: the domain file is not a valid binary property list"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(path))
        // One message, and for writes and reads the hint of what to do about it.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 || (lines.count == 2 && lines[1].hasPrefix("Hint: the file is left as it is; `defaults history com.example.corrupt`")), "one message, not \(result.stderr)")
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == garbage)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: tool.userDirectory)
        #expect(!siblings.contains { $0.contains("corrupt-") }, "the file was set aside: \(siblings)")
    }
}

/// Mistakes that are easy to make with Apple's syntax.
@Suite("defaults syntax mistakes", .ownThread)
struct SyntaxMistakeTests {
    @Test("a dash word where the domain goes is an unknown option, not a domain named '-foo'")
    func dashDomain() throws {
        let tool = try ToolFixture()
        let result = try tool.run(["write", "-foo", "k", "v"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("unknown option '-foo' where a domain was expected"))
        #expect(!FileManager.default.fileExists(atPath: tool.domainFile("-foo")))
    }

    @Test("-currentHost right after the verb works as before it")
    func currentHostAfterVerb() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "-currentHost", "com.example.h", "k", "-int", "1"])
        #expect(try tool.output(["-currentHost", "read", "com.example.h", "k"]) == "1\n")
        #expect(try tool.output(["read", "-currentHost", "com.example.h", "k"]) == "1\n")
        #expect(try tool.run(["read", "com.example.h", "k"]).status == 1)
    }

    @Test("text that starts like a property list but is not one gets a hint to use -string")
    func stringHint() throws {
        let tool = try ToolFixture()
        let result = try tool.run(["write", "com.example.s", "k", "(unclosed"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("malformed property list '(unclosed'"))
        #expect(result.stderr.hasSuffix("\nHint: to store the text itself, put -string before it\n"))
        try tool.output(["write", "com.example.s", "k", "-string", "(unclosed"])
        #expect(try tool.output(["read", "com.example.s", "k"]) == "(unclosed\n")
    }
}

/// A .plist named by path in a format the library does not write.
@Suite("defaults and XML files named by path", .ownThread)
struct XMLPathTests {
    @Test("an XML plist named by path reads, and a write to it is refused with a hint, the file untouched")
    func xmlPath() throws {
        let tool = try ToolFixture()
        let path = tool.directory.file("settings.plist").path
        try Data(XMLPropertyListEncoder().encode(["k": 1])).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let before = FileManager.default.contents(atPath: path)
        #expect(try tool.output(["read", path, "k"]) == "1\n")
        let result = try tool.run(["write", path, "k", "-int", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Hint: a .plist named by path is written as a binary property list"))
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tool.directory.url.path).filter { $0.contains("corrupt") }.isEmpty)
    }
}
