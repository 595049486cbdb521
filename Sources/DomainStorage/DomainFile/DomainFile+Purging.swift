package import PropertyList
import SystemPackage

extension DomainFile {
    /// What a purge changed.
    package struct PurgeOutcome: Sendable, Equatable {
        /// Generations rewritten without the keys.
        package var rewritten: [UInt64] = []
        /// Generations removed (a purge of the whole history).
        package var removed: [UInt64] = []
        /// Copies of the file kept aside as corrupt that were rewritten or removed.
        package var corruptCopies: [String] = []

        /// Creates an outcome.
        package init() {}
    }

    /// Takes `keys`' values out of every generation of the history and every copy of the
    /// file kept aside as corrupt (`<file>.corrupt-<time>`); with `keys` nil, removes the
    /// generations and the copies themselves. The caller holds the domain's lock
    /// (``DomainWriter/purge(keys:known:)`` takes it).
    ///
    /// A generation holding a key is rewritten without it, with its writer, time and mode,
    /// through a temporary name, synced, and renamed over its name, and the directory is
    /// synced: a power cut leaves each generation whole, with the values or without them. A
    /// file that does not decode cannot be rewritten by key: the bytes of every value the
    /// keys had (in `known` and in the generations that decode; strings in UTF-8 and UTF-16,
    /// data as it is, four bytes or longer) are overwritten with zeros instead.
    package func purgeWhileLocked(
        keys: Set<String>?, known: [PropertyListValue] = [], policy: FilePolicy
    ) throws(PreferencesError) -> PurgeOutcome {
        var outcome = PurgeOutcome()
        let history = DomainHistory(file: self)
        var secrets = known
        if let directory = try history.openDirectory(policy: policy, creating: false) {
            defer { try? directory.close() }
            let numbers = DomainHistory.generationNumbers(in: directory).sorted()
            var undecodable: [UInt64] = []
            var rewrites: [(UInt64, [String: PropertyListValue])] = []
            for number in numbers {
                let name = DomainHistory.fileName(ofGeneration: number)
                guard let keys else {
                    try check(Errno.typed({ try SystemCalls.unlink(name, in: directory) }), history.path(ofGeneration: number), "could not remove")
                    outcome.removed.append(number)
                    continue
                }
                switch history.readGeneration(number, policy: policy)?.contents {
                case .success(let values)?:
                    let held = values.filter { keys.contains($0.key) }
                    guard !held.isEmpty else { continue }
                    secrets += held.values
                    rewrites.append((number, values.filter { !keys.contains($0.key) }))
                case .failure?: undecodable.append(number)
                case nil: continue
                }
            }
            for (number, values) in rewrites {
                let bytes: [UInt8]
                do throws(PropertyListError) {
                    bytes = try BinaryPropertyListEncoder().encode(.dictionary(values))
                } catch {
                    throw PreferencesError(.io, path: history.path(ofGeneration: number), "could not encode the generation without the purged keys: \(error)")
                }
                try rewrite(number, bytes, history: history, directory: directory)
                outcome.rewritten.append(number)
            }
            for number in undecodable {
                let path = history.path(ofGeneration: number)
                if try scrub(FilePath(path), of: secrets, in: directory, name: DomainHistory.fileName(ofGeneration: number)) {
                    outcome.rewritten.append(number)
                }
            }
            if !outcome.rewritten.isEmpty || !outcome.removed.isEmpty {
                try check(Errno.typed({ try Self.syncDirectory(directory) }), history.directoryPath, "could not sync")
                DomainHistory.forgetListing(of: history.directoryPath)
            }
        }
        // The copies kept aside as corrupt, beside the file.
        let prefix = fileName + ".corrupt-"
        guard let names = try? SystemCalls.directoryEntries(FilePath(directory)), names.contains(where: { $0.hasPrefix(prefix) }) else {
            return outcome
        }
        let folder: FileDescriptor
        do {
            folder = try Errno.typed {
                try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .noFollow, .closeOnExec])
            }
        } catch {
            throw PreferencesError(.io, path: directory, errno: error.rawValue, "could not open the domain's directory to purge its corrupt copies: \(error)")
        }
        defer { try? folder.close() }
        for name in names.sorted() where name.hasPrefix(prefix) && !name.hasSuffix(".tmp") {
            if keys == nil {
                try check(Errno.typed({ try SystemCalls.unlink(name, in: folder) }), siblingPath(name), "could not remove")
                outcome.corruptCopies.append(name)
            } else if try scrub(FilePath(siblingPath(name)), of: secrets, in: folder, name: name) {
                outcome.corruptCopies.append(name)
            }
        }
        if !outcome.corruptCopies.isEmpty {
            try check(Errno.typed({ try Self.syncDirectory(folder) }), directory, "could not sync")
        }
        return outcome
    }

    /// Rewrites generation `number` with `bytes`, keeping its record, time and mode.
    private func rewrite(_ number: UInt64, _ bytes: [UInt8], history: DomainHistory, directory: FileDescriptor) throws(PreferencesError) {
        let name = DomainHistory.fileName(ofGeneration: number)
        do throws(Errno) {
            try DomainHistory.writeCopy(of: FilePath(history.path(ofGeneration: number)), holding: bytes, into: directory, as: name, replacing: true)
        } catch {
            throw PreferencesError(.io, path: history.path(ofGeneration: number), errno: error.rawValue, "could not rewrite the generation without the purged keys: \(error)")
        }
    }

    /// Overwrites every occurrence of the secrets' bytes in a file that does not decode with
    /// zeros, as a new file renamed over it; false if none occurs (the file is left alone).
    private func scrub(_ path: FilePath, of secrets: [PropertyListValue], in folder: FileDescriptor, name: String) throws(PreferencesError) -> Bool {
        guard var bytes = try? Errno.typed({ () throws -> [UInt8] in
            let descriptor = try SystemCalls.openForReading(name, in: folder)
            defer { try? descriptor.close() }
            let size = Int(try descriptor.stat().size)
            return try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                count = try descriptor.read(into: UnsafeMutableRawBufferPointer(buffer))
            }
        }) else { return false }
        var changed = false
        for pattern in secrets.flatMap(Self.byteForms) where pattern.count <= bytes.count {
            var index = 0
            while index + pattern.count <= bytes.count {
                if bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                    bytes.replaceSubrange(index..<(index + pattern.count), with: repeatElement(0, count: pattern.count))
                    changed = true
                    index += pattern.count
                } else {
                    index += 1
                }
            }
        }
        guard changed else { return false }
        do throws(Errno) {
            try DomainHistory.writeCopy(of: path, holding: bytes, into: folder, as: name, replacing: true)
        } catch {
            throw PreferencesError(.io, path: path.string, errno: error.rawValue, "could not rewrite the copy without the purged values: \(error)")
        }
        return true
    }

    /// The byte strings a value may appear as in a binary property list: a string in UTF-8
    /// (ASCII strings) and UTF-16 big-endian (the others), data as it is, and those inside
    /// arrays and dictionaries; shorter than four bytes is too common to be told from other
    /// bytes, and left.
    static func byteForms(of value: PropertyListValue) -> [[UInt8]] {
        switch value {
        case .string(let text):
            let utf16 = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return [Array(text.utf8), utf16].filter { $0.count >= 4 }
        case .data(let data):
            return data.count >= 4 ? [Array(data)] : []
        case .array(let elements):
            return elements.flatMap(byteForms)
        case .dictionary(let entries):
            return entries.values.flatMap(byteForms)
        default:
            return []
        }
    }

    /// Syncs a directory whose names a purge replaced or removed, unless a test took the
    /// directory sync out (``DurabilityFaults/omitsDirectorySync``, for the power-loss
    /// harness to show it would catch the purge without it).
    private static func syncDirectory(_ directory: FileDescriptor) throws(Errno) {
        if !DurabilityFaults.omitsDirectorySync { try SystemCalls.fsync(directory) }
    }

    /// `result`'s error as a purge failure naming `path`.
    private func check(_ result: @autoclosure () throws(Errno) -> Void, _ path: String, _ what: String) throws(PreferencesError) {
        do throws(Errno) {
            try result()
        } catch {
            throw PreferencesError(.io, path: path, errno: error.rawValue, "\(what) \(path) while purging: \(error)")
        }
    }
}
