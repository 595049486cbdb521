/// Where a domain's schema is looked for, in order.
///
/// The entries of `$PREFERENCES_SCHEMA_PATH` (colon-separated) when it is set; otherwise
/// `$XDG_DATA_HOME/preferences/schemas` (default `~/.local/share`) and
/// `preferences/schemas` under each entry of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`), as the XDG base-directory specification says. Relative
/// entries are ignored, as the specification requires. In each directory, `<domain>.plist`
/// (native) is looked for before `<domain>.bundle/Root.plist`; the first found wins.
///
/// `PREFERENCES_SCHEMA_PATH` set but empty names no directory: schema lookup is off, which
/// is how a program or a test opts out of installed schemas.
public struct SchemaSearchPath: Sendable, Hashable {
    /// The directories, in order.
    public var directories: [String]

    /// Creates a search path from a list of directories.
    public init(directories: [String]) {
        self.directories = directories
    }

    /// The search path an environment gives (see the type's description); `home` is used
    /// when `XDG_DATA_HOME` is unset.
    public init(environment: [String: String], home: String) {
        if let explicit = environment["PREFERENCES_SCHEMA_PATH"] {
            var seen = Set<String>()
            directories = explicit.split(separator: ":").filter { $0.hasPrefix("/") }.map { $0.trimmingTrailingSlashes() }
                .filter { seen.insert($0).inserted }
            return
        }
        var result: [String] = []
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.pathAppending(".local/share")
        // XDG_DATA_HOME's trailing slashes are trimmed like XDG_DATA_DIRS' entries: else
        // "/data/" gave "/data//preferences/schemas", which the duplicate filter below does
        // not see as the same directory as XDG_DATA_DIRS' "/data".
        result.append(dataHome.pathAppending("preferences/schemas"))
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share/:/usr/share/"
        for entry in dataDirs.split(separator: ":") where entry.hasPrefix("/") {
            result.append(entry.pathAppending("preferences/schemas"))
        }
        var seen = Set<String>()
        directories = result.filter { seen.insert($0).inserted }
    }

    /// The places a schema for `domain` may be, in the order they are tried: each
    /// directory's native file, then its bundle.
    public func candidates(forDomain domain: String) -> [Candidate] {
        directories.flatMap { directory in
            [
                Candidate(directory: directory, entry: domain + ".plist", format: .native),
                Candidate(directory: directory, entry: domain + ".bundle", format: .settingsBundle),
            ]
        }
    }

    /// One place a schema may be.
    public struct Candidate: Sendable, Hashable {
        /// The schema directory.
        public var directory: String
        /// The entry in it: `<domain>.plist` or `<domain>.bundle`.
        public var entry: String
        /// What the entry holds.
        public var format: PreferenceSchema.Format

        /// The schema's main file: the native file, or the bundle's `Root.plist`.
        public var path: String {
            format == .native ? "\(directory)/\(entry)" : "\(directory)/\(entry)/Root.plist"
        }
    }
}
