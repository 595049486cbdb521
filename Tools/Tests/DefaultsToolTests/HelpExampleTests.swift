import Foundation
import TestSupport
import Testing

/// Every verb's help shows how it is used, as an example command line.
@Suite("defaults help examples", .ownThread)
struct HelpExampleTests {
    /// The verbs `defaults --help` lists, read from its SUBCOMMANDS section, so a verb added
    /// later is checked without this test changing.
    static func listedVerbs(_ tool: ToolFixture) throws -> [String] {
        let help = try tool.output(["--help"])
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        // A verb's line starts with two spaces and the verb; its abstract's continuation lines
        // start with more spaces.
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), line.dropFirst(2).first?.isLetter == true else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
    }

    /// The command lines under "Examples:" in a help text.
    static func examples(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Examples:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("defaults --help lists every verb")
    func everyVerbListed() throws {
        let verbs = try Self.listedVerbs(ToolFixture())
        #expect(Set(verbs) == [
            "read", "read-type", "write", "rename", "delete", "domains", "find", "import", "export", "watch",
            "explain", "describe", "edit", "history", "undo", "restore", "purge", "import-foundation",
        ])
    }

    @Test("help VERB and VERB --help show an example of the verb")
    func everyVerbHasAnExample() throws {
        let tool = try ToolFixture()
        let verbs = try Self.listedVerbs(tool)
        #expect(!verbs.isEmpty)
        for verb in verbs {
            for arguments in [["help", verb], [verb, "--help"]] {
                let examples = Self.examples(in: try tool.output(arguments))
                #expect(
                    examples.contains { $0 == "defaults \(verb)" || $0.hasPrefix("defaults \(verb) ") },
                    "defaults \(arguments.joined(separator: " ")) shows no example of \(verb): \(examples)")
            }
        }
    }
}
