import ArgumentParser

/// `defaults`: Apple's tool for reading and writing preferences, on Linux, and more.
struct Defaults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read, write, watch and explain preferences domains.",
        discussion: """
            Apple's syntax works as on macOS: `defaults [-currentHost] VERB DOMAIN ...`. A domain is \
            a name (com.example.app), -g, -globalDomain or NSGlobalDomain for the global domain, or \
            a path to a .plist file. -currentHost, given before the verb, means the domain's \
            by-host file for this machine.

            write takes an untyped value (old-style property-list text such as \
            '{ a = 1; b = (x, y); }', an XML fragment such as '<integer>5</integer>', or a string) \
            or a type flag and its value: -string, -data (hex), -int/-integer, -float, \
            -bool/-boolean (true/false/yes/no), -date, -array, -array-add, -dict, -dict-add.

            Every write keeps the version it replaces as a numbered generation: history lists \
            them, undo goes back one, restore brings back any.

            Files are found as the Preferences library finds them: $PREFERENCES_HOME, else \
            $XDG_CONFIG_HOME/preferences, else ~/.config/preferences.
            """,
        subcommands: [
            Read.self, ReadType.self, Write.self, Rename.self, Delete.self, Domains.self, Find.self,
            Import.self, Export.self, Watch.self, Explain.self, Describe.self, Edit.self,
            History.self, Undo.self, Restore.self, Purge.self, ImportFoundation.self,
        ]
    )
}
