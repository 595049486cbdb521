import DeclaredSettings
import Foundation
import Synchronization
import SystemPackage

/// Finds and reads a domain's schema the way a store trusts files: no links followed, owned
/// by this user or root, not writable by group or others, in a directory that is not either.
struct SchemaLookup: Sendable, Equatable {
    /// What a lookup found.
    enum Outcome: Sendable, Equatable {
        /// No schema: the domain's keys are all free-form.
        case none
        /// A usable schema.
        case found(PreferenceSchema)
        /// A schema file exists but cannot be used; the domain works without it.
        case failed(SchemaError)

        var schema: PreferenceSchema? {
            if case .found(let schema) = self { schema } else { nil }
        }

        var error: SchemaError? {
            if case .failed(let error) = self { error } else { nil }
        }
    }

    /// Where to look: the search path's candidates, or one path named by the program.
    enum Place: Sendable, Equatable {
        case searchPath(SchemaSearchPath)
        case file(String)
    }

    let domain: String
    let place: Place

    /// A name in a directory that a change of the schema may show up as.
    struct Entry: Sendable, Hashable {
        var directory: String
        var name: String

        init(directory: String, name: String) {
            self.directory = directory
            self.name = name
        }

        /// The entry for an absolute path.
        init(path: String) {
            let (directory, name) = SchemaLookup.split(path)
            self.init(directory: directory, name: name)
        }
    }

    /// What to watch after a lookup found `outcome`: every candidate place (a schema may be
    /// installed, replaced or removed there), and each file of a bundle that was read (an
    /// edit inside a bundle changes no name in the schema directory).
    func watchedEntries(after outcome: Outcome) -> [Entry] {
        var entries: [Entry]
        switch place {
        case .searchPath(let path):
            entries = path.candidates(forDomain: domain).map { Entry(directory: $0.directory, name: $0.entry) }
        case .file(let file):
            entries = [Entry(path: PreferenceSchema.settingsBundleDirectory(of: file) ?? file)]
        }
        switch outcome {
        case .found(let schema) where schema.format == .settingsBundle:
            entries += schema.files.map { Entry(path: $0) }
        case .failed(let error) where PreferenceSchema.settingsBundleDirectory(of: Self.split(error.path).directory) != nil:
            entries += [Entry(path: error.path), Entry(path: Self.split(error.path).directory + "/Root.plist")]
        default:
            break
        }
        // A few entries: deduplicated by search, as a process's first `Set<Entry>` costs a
        // scan of every loaded library's conformance records, a large share of the first
        // store of a declared domain (Benchmarks/RESULTS.md, "first open in a process").
        var unique: [Entry] = []
        for entry in entries where entry.directory.hasPrefix("/") && !unique.contains(entry) { unique.append(entry) }
        return unique
    }

    /// Looks the schema up: the first candidate that exists decides (a broken one is not
    /// passed over for a later one, as an override that fails must not silently bring back
    /// the schema it overrides).
    func find() -> Outcome {
        switch place {
        case .file(let path):
            return read(path)
        case .searchPath(let path):
            for candidate in path.candidates(forDomain: domain) {
                let entry = candidate.directory + "/" + candidate.entry
                guard (try? FilePath(entry).stat(followTargetSymlink: false)) != nil else { continue }
                return read(candidate.format == .native ? entry : entry + "/Root.plist")
            }
            return .none
        }
    }

    private func read(_ path: String) -> Outcome {
        do throws(SchemaError) {
            let bundle = PreferenceSchema.settingsBundleDirectory(of: path)
            if let bundle {
                try Self.checkDirectory(Self.split(bundle).directory, for: bundle)
                try Self.checkDirectory(bundle, for: bundle, isBundle: true)
            } else {
                try Self.checkDirectory(Self.split(path).directory, for: path)
            }
            if let cached = Self.cached(path) { return .found(cached) }
            let recorder = ReadFiles()
            let reader = SchemaFileReader { file throws(SchemaError) -> Data in
                try Self.readChecked(file, recording: recorder)
            }
            let schema = if let bundle {
                try PreferenceSchema(settingsBundle: bundle, reader: reader)
            } else {
                try PreferenceSchema(native: reader.read(path), path: path)
            }
            Self.remember(schema, at: path, files: recorder.files.withLock { $0 })
            return .found(schema)
        } catch {
            return .failed(error)
        }
    }

    // MARK: The process's parsed schemas

    /// The files one read went through, with their identities when read.
    private final class ReadFiles: Sendable {
        let files = ThreadLock<[(path: String, identity: FileIdentity?)]>([], rank: .leaf)
    }

    /// A schema parsed in this process, with the identity of every file it was read from.
    private struct Parsed: Sendable {
        let files: [(path: String, identity: FileIdentity)]
        let schema: PreferenceSchema
    }

    /// Parsed schemas by path: every store of a domain, and every later open, reuses the parse
    /// while none of its files has changed (one `lstat` each), so only a process's first store
    /// pays for reading a large schema.
    private static let parsed = ThreadLock([String: Parsed](), rank: .leaf)
    private static let parsedLimit = 64

    private static func cached(_ path: String) -> PreferenceSchema? {
        guard let entry = parsed.withLock({ $0[path] }) else { return nil }
        for file in entry.files {
            let (directory, name) = split(file.path)
            let current = DomainFile(directory: directory, fileName: name).identity()
            guard current == file.identity else { return nil }
        }
        return entry.schema
    }

    /// Keeps `schema` if every file it came from was settled when read: a file changed within
    /// the file system's timestamp granularity could change again with the same identity.
    private static func remember(_ schema: PreferenceSchema, at path: String, files: [(path: String, identity: FileIdentity?)]) {
        let now = SystemCalls.wallClockNanoseconds()
        var settled: [(path: String, identity: FileIdentity)] = []
        for file in files {
            guard let identity = file.identity, identity.isSettled(at: now) else { return }
            settled.append((file.path, identity))
        }
        parsed.withLock { table in
            if table.count >= parsedLimit { table.removeAll() }
            table[path] = Parsed(files: settled, schema: schema)
        }
    }

    /// An absolute path's directory and last component, by its last slash (trailing slashes
    /// ignored). Plain string work: Foundation's URL costs a first-use setup that was most of a
    /// process's first schema lookup.
    static func split(_ path: String) -> (directory: String, name: String) {
        let trimmed = path.trimmingTrailingSlashes()
        guard let slash = trimmed.lastIndex(of: "/") else { return ("/", trimmed) }
        let directory = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (directory, String(trimmed[trimmed.index(after: slash)...]))
    }

    /// Who may own a schema: this user, or root (schemas installed for everyone).
    static var trustedOwners: [UInt32] { [geteuidValue, 0] }

    /// Reads a schema file through the domain files' checks, with the schema's size limit.
    static let checkedReader = SchemaFileReader { path throws(SchemaError) -> Data in
        try readChecked(path, recording: nil)
    }

    /// ``checkedReader``'s read, noting the file's identity in `recorder`.
    private static func readChecked(_ path: String, recording recorder: ReadFiles?) throws(SchemaError) -> Data {
        let (directory, name) = split(path)
        let file = DomainFile(directory: directory, fileName: name)
        let policy = FilePolicy(sizeLimit: PreferenceSchema.sizeLimit, trustedOwners: trustedOwners, createsDirectory: false)
        let read: (bytes: [UInt8], identity: FileIdentity)??
        do throws(PreferencesError) {
            read = try file.readCheckedBytes(policy: policy, role: "the schema file")
        } catch {
            switch error.code {
            case .tooLarge: throw SchemaError(.tooLarge, path: path, error.reason)
            case .symbolicLink, .wrongOwner, .insecurePermissions: throw SchemaError(.untrusted, path: path, error.reason)
            default: throw SchemaError(.unreadable, path: path, error.reason)
            }
        }
        guard let (bytes, identity) = read ?? nil else { throw SchemaError(.missingFile, path: path, "the file does not exist") }
        recorder?.files.withLock { $0.append((path, identity)) }
        return Data(bytes)
    }

    /// Refuses a schema whose directory another user could change: one owned by someone else
    /// than this user or root, or writable by group or others (sticky or not: anyone could
    /// plant a schema under a domain's name first).
    static func checkDirectory(_ directory: String, for schema: String, isBundle: Bool = false) throws(SchemaError) {
        let status: Stat
        do {
            status = try Errno.typed { try FilePath(directory).stat(followTargetSymlink: !isBundle) }
        } catch {
            throw SchemaError(.unreadable, path: schema, "its directory \(directory) cannot be examined: \(error)")
        }
        let what = isBundle ? "the bundle" : "its directory \(directory)"
        guard status.type == .directory else {
            throw SchemaError(isBundle && status.type == .symbolicLink ? .untrusted : .unreadable, path: schema,
                              "\(what) is not a directory" + (status.type == .symbolicLink ? " but a symbolic link" : ""))
        }
        guard trustedOwners.contains(status.userID.rawValue) else {
            throw SchemaError(.untrusted, path: schema, "\(what) is owned by uid \(status.userID.rawValue), neither this user nor root")
        }
        guard status.permissions.isDisjoint(with: [.groupWrite, .otherWrite]) else {
            throw SchemaError(.untrusted, path: schema,
                              "\(what) is group- or world-writable (mode \(FilePolicy.octal(status.permissions))), so another user could plant a schema there")
        }
    }
}
