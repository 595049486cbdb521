package import Preferences

extension DefaultsContext {
    /// The keys `location`'s schema declares private; none for files named by path, the
    /// global domain, domains without a schema and schemas that cannot be used.
    package func privateKeys(of location: PersistentDomainLocation) -> Set<String> {
        guard let schema = try? files().schema(for: location) else { return [] }
        return schema.privateKeys
    }
}

/// How the tool keeps the value of a key declared private (``DeclaredKey/isPrivate``) out of
/// sight: where values are printed for people or logs (`watch`, `explain`, `describe`) it
/// prints the library's ``DeclaredKey/privateValuePlaceholder`` instead, never the value.
/// `read` prints it, to the user who owns it; `export` leaves it out unless asked.
package enum PrivateValue {
    /// Overwrites each of this process's own arguments that is one of `words` with as many
    /// asterisks, in the memory `/proc/<pid>/cmdline` is read from: what `ps` shows, and
    /// what journald records as the `_CMDLINE` field of every entry the process logs, so the
    /// value of a private key typed on the command line (`defaults write D Token -string
    /// s3cr3t`) is not in the journal beside the write's entry (mysql hides `-p`'s password
    /// the same way). The words already parsed are unaffected. Before this runs, from the
    /// start of the process, the value can still be seen by `ps`.
    package static func hideArguments(_ words: Set<String>) {
        guard !words.isEmpty, CommandLine.argc > 1 else { return }
        let argv = CommandLine.unsafeArgv
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = argv[index], words.contains(String(cString: argument)) else { continue }
            var byte = argument
            while byte.pointee != 0 {
                byte.pointee = 0x2A  // "*"
                byte += 1
            }
        }
    }
}
