import DeclaredSettings
package import SystemPackage

/// One domain's file and the protocol for reading and replacing it.
///
/// A domain file is a binary property list whose top-level value is a dictionary. Readers
/// open it without following links and check it before decoding (see ``FilePolicy``);
/// writers take the domain's hidden lock file, re-read, change, and replace the file by
/// atomic rename, so readers only ever see a whole old file or a whole new one and
/// concurrent writers in any process never lose each other's changes. The hidden files
/// beside it, `.<fileName>.lock` and `.<fileName>.tmp-<pid>-<n>` (written in the hidden
/// staging directory, or beside the file where that cannot be used), start with a dot so
/// they are never taken for domains.
package struct DomainFile: Sendable, Hashable {
    /// The absolute directory the file is in, without a trailing slash (except for `/`).
    package let directory: String
    /// The file's name in its directory, e.g. `com.example.plist` or `.GlobalPreferences.plist`.
    package let fileName: String

    /// Creates the description of a domain file; no file-system call is made.
    ///
    /// - Precondition: `directory` is absolute and `fileName` is a single path component.
    ///   Both come from validated configuration and domain names, so anything else is a
    ///   programmer error.
    package init(directory: String, fileName: String) {
        precondition(directory.hasPrefix("/"), "a domain file's directory must be absolute, not \"\(directory)\"")
        precondition(
            !fileName.isEmpty && fileName != "." && fileName != ".." && !fileName.contains("/")
                && !fileName.utf8.contains(0),
            "a domain file's name must be a single path component, not \"\(fileName)\"")
        self.directory = directory.trimmingTrailingSlashes()
        self.fileName = fileName
        path = self.directory.pathAppending(fileName)
        systemPath = FilePath(path)
    }

    /// The file's absolute path: the directory, a slash, and the file name.
    ///
    /// Stored, with ``systemPath``: every change another process makes is checked with an
    /// `lstat` and read with an `open` of this path, and building the string and the
    /// `FilePath` again each time was a large part of a watching process's work per change.
    package let path: String

    /// ``path`` as the `FilePath` the system calls take.
    package let systemPath: FilePath

    /// The hidden lock file that serialises this domain's writers: `.<fileName>.lock`.
    ///
    /// It is separate from the domain file because the domain file is replaced by rename,
    /// and a lock on a replaced inode would exclude nobody.
    package var lockPath: String { siblingPath(".\(fileName).lock") }

    /// The start of this domain's temporary file names: `.<fileName>.tmp-`.
    package var temporaryFilePrefix: String { ".\(fileName).tmp-" }

    /// The name of the directory, beside the domain files, that new versions are written in
    /// before their rename (see ``stagingDirectory``).
    package static let stagingDirectoryName = ".swift-preferences-staging"

    /// Where new versions of the domain files of this directory are written before their
    /// rename: a subdirectory, so that creating, filling, syncing and closing the temporary
    /// file raise no events in the directory every watching process watches (inotify does
    /// not look into subdirectories). Only the rename is seen there: one wake-up of each
    /// watcher per commit instead of four. Same file system, so the rename stays atomic.
    package var stagingDirectory: String { siblingPath(Self.stagingDirectoryName) }

    /// The file's identity for cheap change detection (`lstat`); nil if it is missing.
    ///
    /// The link itself is examined, never its target, as reads never follow links. Any
    /// failure to examine the path (missing, or a directory on the way that cannot be
    /// searched) also gives nil: the caller's next read reports the real reason.
    package func identity() -> FileIdentity? {
        guard let status = try? systemPath.stat(followTargetSymlink: false) else { return nil }
        return FileIdentity(status)
    }

    /// The path of a file in the same directory.
    package func siblingPath(_ name: String) -> String {
        directory.pathAppending(name)
    }
}
