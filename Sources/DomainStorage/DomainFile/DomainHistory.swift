package import SystemPackage

/// The earlier versions of one domain file: numbered generations, kept as hard links in the
/// hidden directory `.<fileName>.history/` beside the file.
///
/// Every commit of the file (a replacement or a removal, under the domain's lock) links the
/// file it replaces into the directory as `<N>.plist` before the rename: no bytes are copied,
/// the old inode simply keeps a name. `N` is the replaced version's sequence number (from its
/// ``CommitRecord``), or one more than the highest kept, so numbers only grow. The number of
/// generations and their bytes are bounded (``FilePolicy/generationLimit``,
/// ``FilePolicy/generationByteLimit``); the oldest go first, and the newest is never removed.
///
/// The directory is held to the domain file's own rules: it is opened without following a
/// link, and refused if it is not a directory, belongs to an untrusted user, or can be
/// written by group or others; its files are read as domain files are (``FilePolicy``).
/// Keeping a generation never fails a commit: a refused or broken history only means the
/// version is not kept, and a warning says so once.
package struct DomainHistory: Sendable {
    /// The domain file whose versions these are.
    package let file: DomainFile

    /// The history of `file`'s domain.
    package init(file: DomainFile) { self.file = file }

    /// The history directory's name beside the file: `.<fileName>.history`.
    package var directoryName: String { ".\(file.fileName).history" }

    /// The history directory's absolute path.
    package var directoryPath: String { file.siblingPath(directoryName) }

    /// The path of generation `number`.
    package func path(ofGeneration number: UInt64) -> String {
        directoryPath + "/" + Self.fileName(ofGeneration: number)
    }

    /// A generation's file name: `<number>.plist`.
    package static func fileName(ofGeneration number: UInt64) -> String {
        "\(number).plist"
    }

    /// The number a generation's file name carries; nil for any other name (decimal digits
    /// without a leading zero, then `.plist`).
    package static func generationNumber(ofFileName name: String) -> UInt64? {
        guard name.hasSuffix(".plist") else { return nil }
        let digits = name.utf8.dropLast(6)
        guard !digits.isEmpty, digits.count <= 19, digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    /// Opens the history directory after checking it against `policy`; nil if it does not
    /// exist and `creating` is false.
    ///
    /// It is opened with `O_NOFOLLOW | O_DIRECTORY`, so a link or a file planted at its name
    /// is refused rather than used, and checked through the open descriptor, so the directory
    /// checked is the one used.
    ///
    /// - Throws: ``PreferencesError`` naming the directory: `symbolicLink`, `notRegularFile`
    ///   (not a directory), `wrongOwner`, `insecurePermissions` or `io`.
    package func openDirectory(policy: FilePolicy, creating: Bool) throws(PreferencesError) -> FileDescriptor? {
        try openDirectoryWithStatus(policy: policy, creating: creating)?.descriptor
    }

    /// ``openDirectory(policy:creating:)``, with the status it was checked with: a commit
    /// compares it with the status it remembers, with no second `fstat`.
    package func openDirectoryWithStatus(policy: FilePolicy, creating: Bool) throws(PreferencesError) -> (descriptor: FileDescriptor, status: Stat)? {
        let path = directoryPath
        let descriptor: FileDescriptor
        do {
            descriptor = try Errno.typed { try Self.open(path) }
        } catch {
            switch error {
            case .noSuchFileOrDirectory:
                guard creating else { return nil }
                do {
                    // Mode 0700 less the umask: never more open than that.
                    try SystemCalls.mkdir(FilePath(path), .ownerReadWriteExecute)
                } catch {
                    // Made by a concurrent reader or by hand meanwhile: open what is there.
                    guard error == .fileExists else {
                        throw PreferencesError(.io, path: path, errno: error.rawValue, "the history directory could not be created: \(error)")
                    }
                }
                return try openDirectoryWithStatus(policy: policy, creating: false)
            // O_DIRECTORY reports a link as ENOTDIR before O_NOFOLLOW's ELOOP: tell them apart.
            case .tooManySymbolicLinkLevels,
                .notDirectory where (try? FilePath(path).stat(followTargetSymlink: false))?.type == .symbolicLink:
                throw PreferencesError(
                    .symbolicLink, path: path, errno: error.rawValue,
                    "the history directory is a symbolic link; links are never followed, so no generation is kept there")
            case .notDirectory:
                throw PreferencesError(
                    .notRegularFile, path: path, errno: error.rawValue,
                    "the history directory is not a directory; remove what is there so that generations can be kept")
            default:
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the history directory could not be opened: \(error)")
            }
        }
        let status: Stat
        do throws(PreferencesError) {
            do {
                status = try descriptor.stat()
            } catch {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the history directory's status could not be read: \(error)")
            }
            try policy.checkHistoryDirectory(status, path: path)
        } catch {
            try? descriptor.close()
            throw error
        }
        return (descriptor, status)
    }

    /// `open(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)`.
    private static func open(_ path: String) throws -> FileDescriptor {
        try FileDescriptor.open(FilePath(path), .readOnly, options: [.directory, .noFollow, .closeOnExec])
    }

    /// The generation numbers in an open history directory, unsorted; names of any other form
    /// are not generations and are left alone.
    package static func generationNumbers(in directory: FileDescriptor) -> [UInt64] {
        guard let names = try? SystemCalls.directoryEntries(in: directory) else { return [] }
        return names.compactMap(generationNumber(ofFileName:))
    }

    /// The commit record of the file at `path`, if it has one that decodes (any failure to
    /// read it, `ENOTSUP` included, is no record).
    package static func record(atPath path: String) -> CommitRecord? {
        // `try?` flattens the optional: no attribute and a failure to read it are both nil.
        guard let bytes = try? SystemCalls.extendedAttribute(CommitRecord.attributeName, atPath: FilePath(path), limit: CommitRecord.maximumSize)
        else { return nil }
        return CommitRecord(decoding: bytes)
    }
}
