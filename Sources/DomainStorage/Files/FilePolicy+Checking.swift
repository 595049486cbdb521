import PropertyList
package import SystemPackage

extension FilePolicy {
    /// Checks that an open file may be trusted, from its `fstat`.
    ///
    /// The file must be a regular file, owned by one of ``trustedOwners``, not writable by its
    /// group or by others, and no larger than ``sizeLimit``. The status comes from the open
    /// descriptor, not the path, so the file checked is the file that will be read, even if
    /// the path is replaced in between.
    ///
    /// - Parameters:
    ///   - status: The file's status from its open descriptor.
    ///   - path: The file's path, for the error.
    ///   - role: What the file is, for the error's wording, e.g. "the domain file".
    package func check(_ status: Stat, path: String, role: String) throws(PreferencesError) {
        guard status.type == .regular else {
            throw PreferencesError(
                .notRegularFile, path: path,
                "\(role) is \(Self.describe(status.type)), not a regular file; remove it so that a regular file can take its place")
        }
        let owner = status.userID.rawValue
        guard trustedOwners.contains(owner) else {
            throw PreferencesError(
                .wrongOwner, path: path,
                "\(role) is owned by uid \(owner), not by \(describeTrustedOwners()); a file owned by another user is never trusted, so check who created it, then chown or remove it")
        }
        let permissions = status.permissions
        guard permissions.isDisjoint(with: [.groupWrite, .otherWrite]) else {
            throw PreferencesError(
                .insecurePermissions, path: path,
                "\(role) is group- or world-writable (mode \(Self.octal(permissions))), so other users could change it; run chmod go-w on it")
        }
        guard status.size <= Int64(sizeLimit) else {
            throw PreferencesError(
                .tooLarge, path: path, "\(role) is \(status.size) bytes, over the limit of \(sizeLimit) bytes")
        }
    }

    /// Checks that the directory a domain file is written in may be trusted.
    ///
    /// Whoever can write the directory can rename, replace or delete the domain file, so it
    /// must be owned by one of ``trustedOwners`` and not writable by its group or others
    /// unless it is sticky (the file's own checks cannot stop a replacement made between
    /// two writes).
    package func checkDirectory(_ status: Stat, path: String) throws(PreferencesError) {
        let owner = status.userID.rawValue
        guard trustedOwners.contains(owner) else {
            throw PreferencesError(
                .wrongOwner, path: path,
                "the preferences directory is owned by uid \(owner), not by \(describeTrustedOwners()); another user could replace or delete its files, so nothing is written there")
        }
        // A sticky directory (/tmp, mode 1777) lets others add files but not rename or delete
        // ours, and the domain and lock files' own checks refuse anything planted under our
        // names, so writing there is as safe as in a private directory.
        guard status.permissions.contains(.saveText) || status.permissions.isDisjoint(with: [.groupWrite, .otherWrite]) else {
            throw PreferencesError(
                .insecurePermissions, path: path,
                "the preferences directory is group- or world-writable (mode \(Self.octal(status.permissions))), so other users could replace or delete its files; run chmod go-w on it")
        }
    }

    /// Checks that a domain's history directory may be trusted (``DomainHistory``).
    ///
    /// Stricter than the domain's own directory: it must be owned by one of
    /// ``trustedOwners`` and writable by nobody else, sticky or not, because its files are
    /// read back as earlier versions of the domain (by recovery, undo and restore), and one
    /// planted there would be restored as if the program had written it.
    package func checkHistoryDirectory(_ status: Stat, path: String) throws(PreferencesError) {
        guard status.type == .directory else {
            throw PreferencesError(
                .notRegularFile, path: path,
                "the history directory is \(Self.describe(status.type)), not a directory; remove it so that generations can be kept")
        }
        let owner = status.userID.rawValue
        guard trustedOwners.contains(owner) else {
            throw PreferencesError(
                .wrongOwner, path: path,
                "the history directory is owned by uid \(owner), not by \(describeTrustedOwners()); its generations are never trusted, so none is kept or read there")
        }
        guard status.permissions.isDisjoint(with: [.groupWrite, .otherWrite]) else {
            throw PreferencesError(
                .insecurePermissions, path: path,
                "the history directory is group- or world-writable (mode \(Self.octal(status.permissions))), so other users could plant generations; run chmod go-w on it")
        }
    }

    /// The trusted owners in words, e.g. "uid 1000 (the user running this program)".
    private func describeTrustedOwners() -> String {
        let me = SystemCalls.effectiveUserID()
        if trustedOwners == [me] { return "uid \(me) (the user running this program)" }
        if trustedOwners.isEmpty { return "any trusted user (none are configured)" }
        return "any of the trusted uids " + trustedOwners.map(String.init).joined(separator: ", ")
    }

    /// A file type in words, with its article.
    private static func describe(_ type: FileType) -> String {
        switch type {
        case .directory: "a directory"
        case .regular: "a regular file"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        case .symbolicLink: "a symbolic link"
        default: "a special file"
        }
    }

    /// Permission bits as `chmod` writes them, e.g. `0664`.
    package static func octal(_ permissions: FilePermissions) -> String {
        String(permissions.rawValue & 0o7777, radix: 8).zeroPadded(to: 4)
    }
}
