import ArgumentParser
import DefaultsCommand
import Foundation

// Apple's syntax is rewritten first (see ArgumentRewriting); our own failures print their
// message alone on standard error (Apple's exact messages where there are some) and exit
// non-zero; ArgumentParser's own (unknown option, missing argument) print with usage.
do {
    let arguments = try ArgumentRewriting.rewrite(Array(CommandLine.arguments.dropFirst()))
    if try !DirectRun.runIfPlain(arguments) {
        var command = try Defaults.parseAsRoot(arguments)
        try command.run()
    }
} catch let failure as DefaultsFailure {
    Output.error(failure.description)
    exit(failure.exitCode)
} catch let failure as ArgumentRewriting.RewriteFailure {
    Output.error("\(failure.message)\nUsage: defaults [-currentHost] VERB DOMAIN ... (see defaults help)")
    exit(64)
} catch {
    Defaults.exit(withError: error)
}
