import SystemPackage

/// The domains a preferences directory holds, by their files' names.
package enum DomainDirectory {
    /// The names of the files in `directory` that end in `suffix`, without it, sorted; hidden
    /// files (locks, staging, history, the global domain) and the bare suffix are left out.
    /// An unreadable or missing directory holds none. The names are not checked as domain
    /// names: the caller knows its rules.
    package static func stems(in directory: String, suffix: String) -> [String] {
        let names = (try? SystemCalls.directoryEntries(FilePath(directory))) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(suffix) && $0.utf8.count > suffix.utf8.count }
            .map { String(decoding: $0.utf8.dropLast(suffix.utf8.count), as: UTF8.self) }
            .sorted()
    }
}
