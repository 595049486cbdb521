import SystemPackage
package import PropertyList

extension DomainHistory {
    /// One version of a domain file as read from disk: a generation, or the current file.
    package struct StoredVersion: Sendable {
        /// Its path.
        package let path: String
        /// Its values, or why they cannot be used (corrupt, unsafe, unreadable).
        package let contents: Result<[String: PropertyListValue], PreferencesError>
        /// Its status as read, nil if it could not be read.
        package let identity: FileIdentity?
        /// Its commit record, if it has one that decodes.
        package let record: CommitRecord?

        /// The record, if it still describes these bytes: the file's modification time is the
        /// one its writer stamped. A file rewritten in place keeps its record but not the time.
        package var validRecord: CommitRecord? {
            guard let record, let identity, record.modificationTime == identity.modificationTime else { return nil }
            return record
        }

        /// Its number as the current version, above the newest kept generation `newestKept`:
        /// its recorded sequence, unless it was rewritten by hand or never recorded, when it
        /// is simply the version after the newest kept.
        package func numberAsCurrent(newestKept: UInt64?) -> UInt64 {
            let next = (newestKept ?? 0) + 1
            return validRecord.map { max($0.sequence, next) } ?? next
        }
    }

    /// The kept generation numbers, newest first; empty if there is no history directory.
    ///
    /// - Throws: ``PreferencesError`` if the history directory is refused (see
    ///   ``openDirectory(policy:creating:)``).
    package func generationNumbers(policy: FilePolicy) throws(PreferencesError) -> [UInt64] {
        guard let directory = try openDirectory(policy: policy, creating: false) else { return [] }
        defer { try? directory.close() }
        return Self.generationNumbers(in: directory).sorted(by: >)
    }

    /// Reads one generation as domain files are read: without following a link, checked
    /// against `policy` on its open descriptor, bounded, decoded; nil if it does not exist.
    package func readGeneration(_ number: UInt64, policy: FilePolicy) -> StoredVersion? {
        let generation = DomainFile(directory: directoryPath, fileName: Self.fileName(ofGeneration: number))
        return Self.readVersion(of: generation, role: "generation \(number) of \(file.fileName)", policy: policy, confirmingName: true)
    }

    /// Reads the current domain file the same way; nil if it does not exist.
    package func readCurrent(policy: FilePolicy) -> StoredVersion? {
        Self.readVersion(of: file, role: "the domain file", policy: policy)
    }

    /// The newest generation whose file is safe and decodes to a dictionary, with its
    /// number; nil if there is none (or the history directory is refused).
    package func newestGoodGeneration(policy: FilePolicy) -> (number: UInt64, values: [String: PropertyListValue])? {
        guard let numbers = try? generationNumbers(policy: policy) else { return nil }
        for number in numbers {
            if let version = readGeneration(number, policy: policy), case .success(let values) = version.contents {
                return (number, values)
            }
        }
        return nil
    }

    /// Reads a version's bytes, record and values; nil if the file does not exist.
    private static func readVersion(of version: DomainFile, role: String, policy: FilePolicy, confirmingName: Bool = false) -> StoredVersion? {
        let observedAt = SystemCalls.wallClockNanoseconds()
        let checked: (bytes: [UInt8], identity: FileIdentity)?
        do throws(PreferencesError) {
            checked = try version.readCheckedBytes(policy: policy, role: role, confirmingName: confirmingName)
        } catch {
            return StoredVersion(path: version.path, contents: .failure(error), identity: version.identity(), record: nil)
        }
        guard let checked else { return nil }
        let record = record(atPath: version.path)
        do throws(PreferencesError) {
            let contents = try version.decode(checked.bytes, identity: checked.identity, observedAt: observedAt)
            return StoredVersion(path: version.path, contents: .success(contents.values), identity: checked.identity, record: record)
        } catch {
            return StoredVersion(path: version.path, contents: .failure(error), identity: checked.identity, record: record)
        }
    }
}
