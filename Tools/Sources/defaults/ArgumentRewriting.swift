/// Turns Apple's single-dash syntax into what the command parser reads.
///
/// ArgumentParser reads `-g` as a short option and `-currentHost` as a cluster of short
/// flags, so before parsing: a leading `-currentHost` becomes `--current-host` after the
/// verb, and the first `-g`/`-globalDomain` (the domain, wherever the verb's options put it)
/// becomes `NSGlobalDomain`. `write`
/// reads its own words (its type flags are single-dash too). Any other leading word with a
/// dash is refused here, clearly, instead of being misread as something else. Nothing after
/// `--` is rewritten: there every word is an operand, so `defaults read D -- -g` reads the
/// key `-g`, as POSIX tools treat words after `--`.
enum ArgumentRewriting {
    /// Verbs whose first operand is a domain.
    static let domainVerbs: Set<String> = [
        "read", "read-type", "write", "rename", "delete", "import", "export", "watch", "explain", "describe", "edit",
        "history", "undo", "restore", "purge", "import-foundation",
    ]

    /// Every verb (and `help`), so a mistyped one is named as such.
    static let verbs: Set<String> = domainVerbs.union(["domains", "find", "help"])

    /// The rewritten arguments (without the program name).
    static func rewrite(_ arguments: [String]) throws(RewriteFailure) -> [String] {
        var arguments = arguments
        var currentHost = false
        while let first = arguments.first, first.hasPrefix("-") {
            switch first {
            case "-currentHost", "--current-host":
                currentHost = true
                arguments.removeFirst()
            case "-h", "--help", "-help", "--version", "--generate-completion-script", "--experimental-dump-help":
                return [first == "-help" ? "--help" : first] + arguments.dropFirst()
            case "-host":
                throw RewriteFailure(message: "-host is not supported: preferences of other machines are not reachable on Linux; use -currentHost for this machine")
            default:
                throw RewriteFailure(message: "unknown option '\(first)' before the verb; the only one is -currentHost")
            }
        }
        guard let verb = arguments.first else { return [] }
        guard verbs.contains(verb) else {
            throw RewriteFailure(message: "unknown verb '\(verb)'; the verbs are \(verbs.sorted().joined(separator: ", "))")
        }
        var rest = Array(arguments.dropFirst())
        // Also accepted right after the verb, where people often put it.
        while rest.first == "-currentHost" {
            currentHost = true
            rest.removeFirst()
        }
        if domainVerbs.contains(verb) {
            // The domain is the first operand; options such as --json or --format xml may
            // come before it (except for write, whose words are all its own after the domain).
            // Words after `--` are operands (keys, values), never the domain flag.
            let operandsStart = rest.firstIndex(of: "--") ?? rest.endIndex
            let candidates = verb == "write" ? rest.indices.prefix(1) : rest.indices.prefix(upTo: operandsStart)
            if let index = candidates.first(where: { rest[$0] == "-g" || rest[$0] == "-globalDomain" }) {
                rest[index] = "NSGlobalDomain"
            }
        }
        if currentHost {
            // Right after the verb: the verbs' parsers read it there, and write's own parser,
            // which takes every word as it is, looks for it first.
            rest.insert("--current-host", at: 0)
        }
        return [verb] + rest
    }

    /// A command line that cannot be read.
    struct RewriteFailure: Error {
        let message: String
    }
}
