import Foundation
import PreferenceKeyGeneration

// `preferences-keygen`: the command the PreferenceKeys build-tool plugin runs. The work is
// in PreferenceKeyGeneration, where the tests can call it without starting a process.
let status = KeyGeneratorCommand.run(
    Array(CommandLine.arguments.dropFirst()),
    standardError: { message in FileHandle.standardError.write(Data((message + "\n").utf8)) })
exit(status)
