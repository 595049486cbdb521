import Foundation
import PropertyList
import TestSupport
import Testing

/// Keys that start with `-`, reached after `--` as POSIX tools read operands.
@Suite("defaults keys that start with a dash", .ownThread)
struct DashKeyTests {
    let domain = "com.example.dash"

    @Test("a dash key is written, read, typed, renamed and deleted after --")
    func oneKey() throws {
        let tool = try ToolFixture()
        try tool.output(["write", domain, "--", "-key", "value"])
        #expect(try tool.onDisk(domain) == ["-key": "value"])
        #expect(try tool.output(["read", domain, "--", "-key"]) == "value\n")
        #expect(try tool.output(["read-type", domain, "--", "-key"]) == "Type is string\n")
        try tool.output(["rename", domain, "--", "-key", "-renamed"])
        #expect(try tool.output(["read", domain, "--", "-renamed"]) == "value\n")
        try tool.output(["delete", domain, "--", "-renamed"])
        #expect(try tool.onDisk(domain)?["-renamed"] == nil)
        let missing = try tool.run(["read", domain, "--", "-renamed"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "The domain/default pair of (\(domain), -renamed) does not exist\n")
    }

    @Test("-- may come before the domain too")
    func beforeDomain() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "--", domain, "-key", "-int", "3"])
        #expect(try tool.output(["read", "--", domain, "-key"]) == "3\n")
        try tool.output(["delete", "--", domain, "-key"])
        #expect(try tool.onDisk(domain)?["-key"] == nil)
    }

    @Test("several dash keys in one write after --, typed and untyped")
    func multiKey() throws {
        let tool = try ToolFixture()
        try tool.output(["write", domain, "--", "-a", "-int", "1", "-b", "two", "plain", "-bool", "yes", "-c", "-5"])
        #expect(try tool.onDisk(domain) == ["-a": 1, "-b": "two", "plain": true, "-c": "-5"])
    }

    @Test("after --, -g is a key, not the global domain")
    func globalFlagIsAKey() throws {
        let tool = try ToolFixture()
        try tool.output(["write", domain, "--", "-g", "here"])
        #expect(try tool.output(["read", domain, "--", "-g"]) == "here\n")
        #expect(try tool.output(["read-type", domain, "--", "-g"]) == "Type is string\n")
        try tool.output(["delete", domain, "--", "-g"])
        #expect(try tool.onDisk(domain)?["-g"] == nil)
        #expect(try tool.onDisk(".GlobalPreferences") == nil, "the global domain was not touched")
    }

    @Test("values that look like options work as before, with or without --")
    func dashValues() throws {
        let tool = try ToolFixture()
        try tool.output(["write", domain, "n", "-5"])
        try tool.output(["write", domain, "--", "-m", "-int", "-5"])
        try tool.output(["write", domain, "s", "-string", "-flag"])
        #expect(try tool.onDisk(domain) == ["n": "-5", "-m": -5, "s": "-flag"])
        for words in [["k", "-flag"], ["--", "-k", "-flag"]] {
            let before = FileManager.default.contents(atPath: tool.domainFile(domain))
            let result = try tool.run(["write", domain] + words)
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("unknown type flag '-flag'\n"), "stderr: \(result.stderr)")
            #expect(FileManager.default.contents(atPath: tool.domainFile(domain)) == before)
        }
    }

    @Test("a -- after the key is a value, as it always was")
    func laterDoubleDashIsAValue() throws {
        let tool = try ToolFixture()
        try tool.output(["write", domain, "--", "-k", "--"])
        #expect(try tool.onDisk(domain) == ["-k": "--"])
    }
}
