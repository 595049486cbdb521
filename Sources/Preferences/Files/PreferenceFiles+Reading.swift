import Foundation

extension PreferenceFiles {
    /// The values stored in a domain's file (this process's unwritten changes included),
    /// or nil when the domain has no values (or no file).
    ///
    /// A file given by path may be in any property-list format (binary, XML or old-style
    /// text) for reading; domain files proper are binary.
    ///
    /// - Throws: ``PreferencesError`` if the file is unusable: corrupt, not a dictionary, a
    ///   link, someone else's, writable by others, too large or unreadable.
    public func persistentDomainValues(at location: PersistentDomainLocation) throws(PreferencesError) -> [String: PropertyListValue]? {
        // A plist named by path is often XML or text (written by another tool): read it as
        // such directly, so the domain-file reader does not log it as a damaged binary file.
        if location.isFile, let path = filePath(of: location), Self.isRegularNonBinaryFile(path) {
            let entries = try PropertyListFile.readDictionary(at: URL(fileURLWithPath: path))
            return entries.isEmpty ? nil : entries
        }
        let domain = try persistentDomain(at: location)
        let values = domain.currentValues()
        if let problem = domain.problem {
            // A plist named by path is often XML (written by another tool): read it as such.
            // Writing it still requires a binary file, so writes keep refusing it.
            guard location.isFile, problem.code == .corrupt,
                let entries = try? PropertyListFile.readDictionary(at: URL(fileURLWithPath: domain.file.path))
            else { throw problem }
            return entries.isEmpty ? nil : entries
        }
        return values.isEmpty ? nil : values
    }

    /// Whether `path` is a regular file (not a link, FIFO or device, which the domain-file
    /// reader refuses safely) that is not empty and not a binary property list
    /// (``PropertyListFormat/detect(_:)``).
    static func isRegularNonBinaryFile(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        // `bplist` is all the rule looks at to call a file binary.
        let start = (try? handle.read(upToCount: 6)) ?? Data()
        return !start.isEmpty && PropertyListFormat.detect(start) != .binary
    }
}
