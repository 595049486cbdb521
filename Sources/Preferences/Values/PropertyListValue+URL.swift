#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import DeclaredSettings

// How URLs live in a domain. Property lists have no URL type, so `set(_: URL?, forKey:)`
// stores a string and `url(forKey:)` reads one back. Both directions live here because
// each is the other's inverse and they must change together.

extension PropertyListValue {
    /// The value `set(_: URL?, forKey:)` stores for `url`.
    ///
    /// A local file URL is stored as its standardized path, with `home` abbreviated to `~`
    /// when the path is `home` itself or lies under it (`/home/ann/notes` becomes
    /// `~/notes`, but `/home/ann2` stays as it is), as `UserDefaults` does, so the value
    /// still means the same file after a home directory moves. A directory URL keeps its
    /// trailing slash so it reads back as a directory URL.
    ///
    /// Any other URL (another scheme, or a file URL with a host, query or fragment, which
    /// a path cannot carry) is stored whole as its `absoluteString`: scheme, user, host,
    /// port, path, query and fragment. Never just the path: that would silently turn
    /// `https://example.com/a?b` into `/a`.
    ///
    /// - Parameters:
    ///   - url: The URL to store.
    ///   - home: The home directory to abbreviate, an absolute path; see
    ///     ``defaultHomeDirectory``. A relative or root (`/`) home abbreviates nothing.
    package static func storing(_ url: URL, home: String) -> PropertyListValue {
        let absolute = url.absoluteURL
        guard absolute.isFileURL, (absolute.host ?? "").isEmpty, absolute.query == nil, absolute.fragment == nil
        else {
            return .string(absolute.absoluteString)
        }
        let path = absolute.standardizedFileURL.path(percentEncoded: false)
        return .string(abbreviatingHome(in: path, home: home))
    }

    /// The value as `url(forKey:)` reads it.
    ///
    /// A string starting with `~` has its tilde expanded (`~` and `~/...` with `home`,
    /// `~name/...` with that user's home directory, nil if there is no such user) and
    /// then reads as a path. A string that is an absolute path gives a standardized file
    /// URL, a directory URL when the path ends in `/` (the file system is not consulted,
    /// so the answer does not depend on what exists). A string that starts with a URL
    /// scheme (`https:`, `file:`, `mailto:`) gives `URL(string:)`. Anything else (a
    /// relative path, a number, data, a collection) gives nil: `UserDefaults` would
    /// archive non-file URLs as data, which we never write, and a relative path has no
    /// meaning that does not depend on the current directory.
    ///
    /// - Parameter home: The directory `~` stands for; see ``defaultHomeDirectory``.
    package func coercedURL(home: String) -> URL? {
        guard case .string(let text) = self else { return nil }
        if text.hasPrefix("~") {
            guard let path = Self.expandingTilde(in: text, home: home) else { return nil }
            return Self.fileURL(path)
        }
        if text.hasPrefix("/") { return Self.fileURL(text) }
        if Self.hasScheme(text) { return URL(string: text) }
        return nil
    }

    /// The home directory `~` means when none is given: `$HOME` if it is an absolute
    /// path, else the account's home directory as `FileManager` reports it.
    ///
    /// Resolved on every call, not cached, so a process (or a test) that changes `$HOME`
    /// sees the change, as `NSString.expandingTildeInPath` does.
    package static var defaultHomeDirectory: String {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path(percentEncoded: false)
    }
}

extension PropertyListValue {
    /// `path` with `home` replaced by `~` when it is `home` or lies under it.
    static func abbreviatingHome(in path: String, home: String) -> String {
        guard let home = usableHome(home) else { return path }
        // Compare bytes: String's `hasPrefix` compares canonically equivalent characters,
        // which would match a differently normalized directory name that is not the same
        // file-system entry.
        guard path.utf8.starts(with: home.utf8) else { return path }
        let rest = path.utf8.index(path.startIndex, offsetBy: home.utf8.count)
        if rest == path.endIndex { return "~" }
        guard path.utf8[rest] == UInt8(ascii: "/") else { return path }
        return "~" + path[rest...]
    }

    /// `text`, which starts with `~`, with the tilde expanded; nil if it names a user
    /// who does not exist or `home` is unusable.
    static func expandingTilde(in text: String, home: String) -> String? {
        let afterTilde = text.index(after: text.startIndex)
        let slash = text[afterTilde...].firstIndex(of: "/") ?? text.endIndex
        let user = text[afterTilde..<slash]
        let base: String
        if user.isEmpty {
            guard let home = usableHome(home) else { return nil }
            base = home
        } else {
            guard let other = FileManager.default.homeDirectory(forUser: String(user)),
                let home = usableHome(other.path(percentEncoded: false))
            else { return nil }
            base = home
        }
        return base + text[slash...]
    }

    /// `home` without trailing slashes, or nil if it is not absolute or is `/` (under
    /// which every path lies, so abbreviating would rewrite every path).
    private static func usableHome(_ home: String) -> String? {
        let home = home.trimmingTrailingSlashes()
        guard home.hasPrefix("/"), home != "/" else { return nil }
        return home
    }

    /// A standardized file URL for an absolute path; a trailing slash, and only that,
    /// makes it a directory URL.
    private static func fileURL(_ path: String) -> URL {
        URL(filePath: path, directoryHint: .inferFromPath).standardizedFileURL
    }

    /// True if `text` starts with an RFC 3986 scheme: a letter, then letters, digits,
    /// `+`, `-` or `.`, then `:`.
    private static func hasScheme(_ text: String) -> Bool {
        var sawLetter = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                sawLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                guard sawLetter else { return false }
            case UInt8(ascii: ":"):
                return sawLetter
            default:
                return false
            }
        }
        return false
    }
}
