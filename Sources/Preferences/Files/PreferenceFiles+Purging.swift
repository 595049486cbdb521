extension PreferenceFiles {
    /// Removes `keys` from a domain and from every copy of it kept: the domain's file (as a
    /// commit, which every process sees as a removal), every generation of its history and
    /// every copy of the file kept aside as corrupt. With no keys, removes the whole history
    /// and the corrupt copies, and leaves the current file as it is.
    ///
    /// Generations are rewritten without the keys (their writer, time and mode kept), each
    /// through a temporary file that is synced and renamed over it, then the directory is
    /// synced: a power cut leaves each whole, with or without the values. A copy that does
    /// not decode has the bytes of the values the keys had overwritten instead (strings and
    /// data of four bytes or more). Undo and restore keep working for the other keys.
    ///
    /// Removing a key declared private (`DeclaredKey.isPrivate`) does this by itself; this
    /// is for any key, as `defaults purge` does it.
    ///
    /// - Returns: How many kept files were rewritten or removed.
    /// - Throws: ``PreferencesError`` if the domain's file cannot be used or written, or a
    ///   kept file cannot be rewritten; what was purged before that stays purged.
    @discardableResult
    public func purge(keys: [String], at location: PersistentDomainLocation) throws(PreferencesError) -> Int {
        let domain = try persistentDomain(declaringPrivateKeysAt: location)
        var known: [PropertyListValue] = []
        let names = Set(keys)
        if !names.isEmpty {
            // Loaded first, so an unsafe file refuses the purge before anything is written.
            let current = domain.currentValues()
            if let problem = domain.problem, problem.code != .corrupt && problem.code != .notADictionary { throw problem }
            known = current.filter { names.contains($0.key) }.map(\.value)
            if !known.isEmpty {
                try domain.modify(changing: { names.sorted() }) { values in
                    for name in names { values[name] = nil }
                }
            }
        }
        let outcome = try domain.purgeCopies(of: names.isEmpty ? nil : names, known: known)
        return outcome.rewritten.count + outcome.removed.count + outcome.corruptCopies.count
    }
}
