/// The commonest one-shot command lines, run without ArgumentParser.
///
/// Building ArgumentParser's command tree and reflecting over every verb's options is most of
/// what a one-shot `defaults read` spends before it reads anything: the runtime searches the
/// whole program's protocol conformances for each cast it makes (Benchmarks/RESULTS.md,
/// "defaults beside gsettings"). `read DOMAIN [KEY]` and `write DOMAIN KEY VALUE...` whose words
/// all are plain (none starts with a dash: no option, no type flag, no help) mean exactly
/// one thing, so they go straight to the verb's own code, the same code the parsed command
/// runs. Everything else is parsed as before.
enum DirectRun {
    /// Runs `arguments` (rewritten, without the program name) if they are such a command line.
    ///
    /// - Returns: false, having done nothing, for any other command line.
    static func runIfPlain(_ arguments: [String]) throws -> Bool {
        guard let verb = arguments.first, arguments.dropFirst().allSatisfy({ !$0.hasPrefix("-") }) else { return false }
        switch (verb, arguments.count) {
        case ("read", 2), ("read", 3):
            try Read.read(domain: arguments[1], key: arguments.count == 3 ? arguments[2] : nil, currentHost: false, json: false)
            return true
        case ("write", 4...):
            try Write.write(words: Array(arguments.dropFirst()))
            return true
        default:
            return false
        }
    }
}
