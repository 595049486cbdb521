import DeclaredSettings
import SystemPackage

/// The version of the on-disk protocol (`PROTOCOL.md`) a preferences directory follows, and
/// the rule that keeps two versions of this library, or two implementations, from corrupting
/// each other's files: an implementation reads a directory of a newer version as best it
/// can, and never writes there.
///
/// The version is the marker file ``markerName`` in a preferences directory (the user
/// directory or the system directory), which covers the domain files in it and in its
/// `ByHost/` and `managed/` subdirectories: its text is the decimal version and a newline.
/// No marker means version 1, which every directory written before the marker existed
/// follows. Version 1 never creates, changes or removes a marker: a later version that
/// changes the layout writes one before its first write in the new form.
///
/// Checked by every writer twice: before the domain's lock is taken, so a refused write
/// creates nothing there, not even the lock file; and again under the lock, because a newer
/// implementation may mark the directory while this one waits for it. Reads never check:
/// they read what they can, and a file they cannot decode is survived as any corrupt file is.
package enum ProtocolVersion {
    /// The protocol version this implementation follows and writes.
    package static let known = 1

    /// The marker's file name; hidden, so it is never taken for a domain.
    package static let markerName = ".swift-preferences-protocol"

    /// The most bytes of a marker read: a longer file is not a version number.
    private static let maximumMarkerSize = 64

    /// What a directory's marker says.
    package enum Marker: Sendable, Equatable {
        /// No marker: version 1.
        case absent
        /// The marker names this version.
        case version(Int)
        /// A marker that is there but is no version number (a link, a directory, a file that
        /// cannot be read by its owner, other text): the directory follows a version this
        /// implementation cannot name.
        case unreadable(String)
        /// The marker could not be looked at for a passing reason (out of descriptors or memory,
        /// an I/O error): nothing is known about the version, and nothing is written meanwhile.
        case unknown(String, errno: Int32)

        /// The version a process can act on: the marker's, or 1 when there is none; nil for
        /// an unreadable marker.
        package var version: Int? {
            switch self {
            case .absent: return 1
            case .version(let version): return version
            case .unreadable, .unknown: return nil
            }
        }
    }

    /// Reads the marker of the preferences directory `directory`.
    package static func marker(ofDirectory directory: String) -> Marker {
        let path = FilePath(directory.pathAppending(markerName))
        let descriptor: FileDescriptor
        do {
            descriptor = try Errno.typed { try FileDescriptor.open(path, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking]) }
        } catch {
            // A directory that is missing or cannot be searched holds no marker; anything else
            // at the name (a link, a directory) is a marker nobody can read.
            switch error {
            case .noSuchFileOrDirectory, .notDirectory: return .absent
            case .tooManySymbolicLinkLevels, .permissionDenied, .isDirectory, .noSuchAddressOrDevice:
                return .unreadable("\(path): \(error)")
            default: return .unknown("\(path): \(error)", errno: error.rawValue)
            }
        }
        defer { try? descriptor.close() }
        var buffer = [UInt8](repeating: 0, count: maximumMarkerSize + 1)
        let count: Int
        do {
            count = try Errno.typed { try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) } }
        } catch {
            return .unknown("\(path): \(error)", errno: error.rawValue)
        }
        // The digits, with white space around them ignored (an editor's newline, say).
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0d).contains($0) }
        let digits = buffer[..<count].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard count <= maximumMarkerSize, !digits.isEmpty, digits.count <= 9,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let version = Int(String(decoding: digits, as: UTF8.self)), version > 0
        else {
            return .unreadable("\(path) does not hold a version number")
        }
        return .version(version)
    }

    /// The preferences directories whose markers cover a domain file in `directory`: the
    /// directory itself, and its parent when it is a `ByHost` or `managed` subdirectory.
    package static func coveringDirectories(of directory: String) -> [String] {
        let trimmed = directory.trimmingTrailingSlashes()
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return [trimmed] }
        let last = trimmed[trimmed.index(after: slash)...]
        guard last == "ByHost" || last == "managed" else { return [trimmed] }
        let parent = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return [trimmed, parent]
    }

    /// Throws unless this implementation may write the domain file `file`: every marker that
    /// covers it names version ``known`` or an older one.
    ///
    /// - Throws: ``PreferencesError`` `unsupportedProtocolVersion`, naming the directory, the
    ///   version found and the version known.
    package static func checkWritable(_ file: DomainFile) throws(PreferencesError) {
        for directory in coveringDirectories(of: file.directory) {
            let marker = marker(ofDirectory: directory)
            if let version = marker.version, version <= known { continue }
            let found: String
            switch marker {
            case .version(let version): found = "follows protocol version \(version)"
            case .unreadable(let why): found = "has a protocol marker that names no version (\(why))"
            case .absent: found = "follows protocol version 1"
            case .unknown(let why, let errno):
                throw PreferencesError(
                    .io, path: directory.pathAppending(markerName), errno: errno,
                    "the protocol marker of \(directory) could not be read (\(why)), so \(file.fileName) is not written")
            }
            throw PreferencesError(
                .unsupportedProtocolVersion, path: directory.pathAppending(markerName),
                "the preferences directory \(directory) \(found); this implementation knows protocol version \(known), so it reads there but does not write \(file.fileName)"
            )
        }
    }
}
