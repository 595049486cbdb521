import SystemPackage
import PropertyList

extension DomainFile {
    /// Reads the file safely; nil if it does not exist.
    ///
    /// The file is opened without following links, without blocking (so a FIFO planted at the
    /// path cannot hang the reader) and close-on-exec, then checked through its open
    /// descriptor against `policy` before a byte is decoded, read whole within the size
    /// limit, and decoded with the bounded binary decoder. A read never changes the file.
    ///
    /// - Throws: ``PreferencesError`` naming the path and the reason: `symbolicLink`,
    ///   `notRegularFile`, `wrongOwner`, `insecurePermissions`, `tooLarge`, `corrupt`,
    ///   `notADictionary`, or `io` with the errno of the call that failed.
    package func read(policy: FilePolicy) throws(PreferencesError) -> DomainContents? {
        let observedAt = SystemCalls.wallClockNanoseconds()
        guard let (bytes, identity) = try readCheckedBytes(policy: policy) else { return nil }
        return try decode(bytes, identity: identity, observedAt: observedAt)
    }

    /// The file's current version if it is still `known`'s, with `known.isSettled` brought up
    /// to date; nil if the file changed (or cannot be read now).
    ///
    /// A settled version is confirmed by its identity alone, one `lstat`. An unsettled one
    /// (the file changed within a clock tick of when it was read or written, which is always
    /// the case just after this process wrote it) is confirmed by reading the bytes again and
    /// comparing their fingerprint, because an in-place rewrite of the same size within that
    /// tick leaves the identity unchanged. Reading costs far less than decoding.
    ///
    /// A file whose status-change time alone moved (same inode, size, modification time, mode
    /// and owner) is confirmed the same way, by its fingerprint, and then known by its new
    /// identity: a commit links the file it replaces into the domain's history just before the
    /// rename, which changes that file's link count and so its status-change time, and every
    /// watcher would otherwise decode the old version once more for nothing.
    package func stillHolds(_ known: DomainContents, policy: FilePolicy) -> DomainContents? {
        guard let current = identity(), current.matches(known.identity) else { return nil }
        if current == known.identity && known.isSettled { return known }
        let observedAt = SystemCalls.wallClockNanoseconds()
        guard let (bytes, identity) = try? readCheckedBytes(policy: policy),
            identity.matches(known.identity), ContentDigest(of: bytes) == known.digest
        else { return nil }
        return DomainContents(values: known.values, identity: identity, digest: known.digest, observedAt: observedAt)
    }

    /// Opens, checks and reads the whole file; nil if it does not exist.
    ///
    /// The identity is taken before reading, so a file rewritten in place while it is read
    /// has a newer identity than the one returned, and the next change check reloads it
    /// rather than keeping a torn read.
    ///
    /// With `confirmingName`, the path must still name the file read once it is read, else it
    /// is read again: for a generation, which a commit may write over once it has moved it out
    /// of the history (``DomainHistory/Commit/recycle(as:)``), so a generation still at its
    /// path after the read was not written over during it, and one gone is gone. A domain
    /// file's name is not confirmed: reading the newer file instead would skip a version every
    /// watcher should see, and a commit replacing the file leaves it whole; it is written over
    /// only once two more commits have kept newer generations (never the newest is), and a
    /// read that slow is torn as by any rewrite in place, which the identity taken before
    /// reading has reloaded.
    package func readCheckedBytes(
        policy: FilePolicy, role: String = "the domain file", confirmingName: Bool = false
    ) throws(PreferencesError) -> (bytes: [UInt8], identity: FileIdentity)? {
        var attempt = 1
        while true {
            guard let read = try readCheckedBytesOnce(policy: policy, role: role) else { return nil }
            if !confirmingName || attempt == Self.maximumMovedReadAttempts { return read }
            if let now = identity(), now.device == read.identity.device, now.inode == read.identity.inode { return read }
            attempt += 1
        }
    }

    /// The most reads of a path whose file keeps moving away while it is read; the last is
    /// returned as it is.
    private static let maximumMovedReadAttempts = 5

    /// One open, check and read of ``readCheckedBytes(policy:role:confirmingName:)``.
    private func readCheckedBytesOnce(policy: FilePolicy, role: String) throws(PreferencesError) -> (bytes: [UInt8], identity: FileIdentity)? {
        let descriptor: FileDescriptor
        do {
            descriptor = try Errno.typed {
                try FileDescriptor.open(
                    systemPath, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
            }
        } catch {
            switch error {
            case .noSuchFileOrDirectory:
                return nil
            case .tooManySymbolicLinkLevels:
                throw PreferencesError(
                    .symbolicLink, path: path, errno: error.rawValue,
                    "\(role) is a symbolic link; links are never followed, so replace it with the file itself")
            case .noSuchAddressOrDevice:
                // What opening a Unix socket gives.
                throw PreferencesError(
                    .notRegularFile, path: path, errno: error.rawValue,
                    "\(role) is a socket or device, not a regular file; remove it so that a regular file can take its place")
            default:
                throw PreferencesError(
                    .io, path: path, errno: error.rawValue, "\(role) could not be opened for reading: \(error)")
            }
        }
        // A read-only descriptor has nothing to flush, so a failed close cannot lose data.
        defer { try? descriptor.close() }

        let status: Stat
        do {
            status = try descriptor.stat()
        } catch {
            throw PreferencesError(.io, path: path, errno: error.rawValue, "\(role)'s status could not be read: \(error)")
        }
        try policy.check(status, path: path, role: role)
        #if DEBUG
        Interleaving.reached(.afterOpening, at: path)
        #endif
        let bytes = try readAll(descriptor, expectedSize: Int(status.size), limit: policy.sizeLimit)
        return (bytes, FileIdentity(status))
    }

    /// Decodes a domain file's bytes into its values.
    package func decode(_ bytes: [UInt8], identity: FileIdentity, observedAt: Int64) throws(PreferencesError) -> DomainContents {
        let top: PropertyListValue
        do {
            top = try BinaryPropertyListDecoder().decode(bytes)
        } catch {
            throw PreferencesError(
                .corrupt, path: path, "the domain file is not a valid binary property list: \(error.description)")
        }
        guard case .dictionary(let values) = top else {
            throw PreferencesError(
                .notADictionary, path: path,
                "the domain file's top-level value is \(Self.withArticle(top.typeName)), not a dictionary")
        }
        return DomainContents(values: values, identity: identity, digest: ContentDigest(of: bytes), observedAt: observedAt)
    }

    /// Reads from the descriptor to its end, refusing to hold more than `limit` bytes.
    ///
    /// The size from `fstat` is only a hint: a file can grow while it is read, so the limit
    /// is enforced on the bytes actually read, never on the size reported.
    private func readAll(_ descriptor: FileDescriptor, expectedSize: Int, limit: Int) throws(PreferencesError) -> [UInt8] {
        // One byte more than expected, so reaching the end takes a single extra read.
        var buffer = [UInt8](repeating: 0, count: min(max(expectedSize, 0), limit) + 1)
        var count = 0
        while true {
            if count == buffer.count {
                let grown = min(buffer.count * 2, limit + 1)
                buffer.append(contentsOf: repeatElement(0, count: grown - buffer.count))
            }
            let start = count
            let received: Int
            do {
                received = try Errno.typed {
                    try buffer.withUnsafeMutableBytes { bytes in
                        try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
                    }
                }
            } catch {
                throw PreferencesError(.io, path: path, errno: error.rawValue, "the domain file could not be read: \(error)")
            }
            if received == 0 { break }
            count += received
            if count > limit {
                throw PreferencesError(
                    .tooLarge, path: path, "the domain file grew past the limit of \(limit) bytes while it was read")
            }
        }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// A type name with "a" or "an" in front.
    private static func withArticle(_ name: String) -> String {
        (name.first.map { "aeiou".contains($0) } ?? false) ? "an \(name)" : "a \(name)"
    }
}
