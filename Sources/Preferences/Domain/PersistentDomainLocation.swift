import DeclaredSettings
import Foundation

/// A persistent domain as a tool names one: a domain name, the global domain, or a
/// property-list file given by its path, either for any host or for this machine only.
///
/// This is how the `defaults` tool addresses what it reads and writes; the name is checked
/// (or the path made absolute) when the location is made, before any file-system call.
public struct PersistentDomainLocation: Sendable, Hashable, CustomStringConvertible {
    /// What the location names.
    enum Kind: Sendable, Hashable {
        /// `<user dir>/<name>.plist`.
        case named(String)
        /// `<user dir>/.GlobalPreferences.plist`.
        case global
        /// Any file, by absolute directory and file name.
        case file(directory: String, fileName: String)
    }

    let kind: Kind
    /// True for the by-host layer (`ByHost/<domain>.<machine-id>.plist`), `-currentHost`.
    public let isCurrentHost: Bool

    private init(kind: Kind, isCurrentHost: Bool) {
        self.kind = kind
        self.isCurrentHost = isCurrentHost
    }

    /// The domain named `name`; ``PreferenceStore/globalDomain`` names the global domain.
    ///
    /// - Parameters:
    ///   - name: the domain's name, such as `com.example.app`.
    ///   - currentHost: the by-host file for this machine instead of the one for any host.
    /// - Throws: ``PreferencesError`` with code `invalidDomainName` for a bad name.
    public static func named(_ name: String, currentHost: Bool = false) throws(PreferencesError) -> PersistentDomainLocation {
        if name == DomainLocations.globalDomainName { return PersistentDomainLocation(kind: .global, isCurrentHost: currentHost) }
        return PersistentDomainLocation(kind: .named(try DomainName(name).rawValue), isCurrentHost: currentHost)
    }

    /// The global domain, which every domain sees.
    public static func global(currentHost: Bool = false) -> PersistentDomainLocation {
        PersistentDomainLocation(kind: .global, isCurrentHost: currentHost)
    }

    /// A property-list file at `path`, as `defaults read ~/some/file.plist` names one.
    ///
    /// A relative path is taken from the current directory; `.plist` is added when the path
    /// does not end with it, as Apple's tool does. Such a file has no by-host variant.
    ///
    /// - Throws: ``PreferencesError`` with code `invalidDomainName` when the path names a
    ///   directory (it ends with `/`) or is empty.
    public static func file(atPath path: String) throws(PreferencesError) -> PersistentDomainLocation {
        guard !path.isEmpty, !path.hasSuffix("/"), !path.utf8.contains(0) else {
            throw PreferencesError(.invalidDomainName, "\"\(path)\" does not name a property-list file")
        }
        var absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if !absolute.hasSuffix(".plist") { absolute += ".plist" }
        let url = URL(fileURLWithPath: absolute).standardizedFileURL
        let fileName = url.lastPathComponent
        let directory = url.deletingLastPathComponent().path
        guard fileName != "." && fileName != ".." && directory.hasPrefix("/") else {
            throw PreferencesError(.invalidDomainName, "\"\(path)\" does not name a property-list file")
        }
        return PersistentDomainLocation(kind: .file(directory: directory, fileName: fileName), isCurrentHost: false)
    }

    /// The domain's name, ``PreferenceStore/globalDomain``, or the file's path.
    public var description: String {
        switch kind {
        case .named(let name): name
        case .global: DomainLocations.globalDomainName
        case .file(let directory, let fileName): directory.pathAppending(fileName)
        }
    }

    /// True for a file given by its path rather than a domain name.
    public var isFile: Bool {
        if case .file = kind { true } else { false }
    }
}
