extension WatchTable {
    /// The most directories (and watches) checked after a change; see `_checkInvariants()`.
    package static let invariantCheckLimit = 64

    /// Checks that the table's three maps agree: every registration is listed under its
    /// directory and file name and nowhere else, no directory or name is left without
    /// registrations, and a directory is `.watched(w)` exactly when `w`'s paths include it.
    ///
    /// Compiled only with `PREFERENCES_INTERNAL_CHECKS` (debug builds of this package); runs
    /// after every change of the table. A table of up to ``invariantCheckLimit`` directories
    /// is checked whole; a larger one (a test process holds hundreds of stores' directories)
    /// by that many directories and watches, because a whole check after every change made
    /// the watcher thread's work grow with the square of the table and kept it busy for
    /// seconds in full test runs.
    package func _checkInvariants() {
        #if PREFERENCES_INTERNAL_CHECKS
        let isWhole = directories.count <= Self.invariantCheckLimit
        var listed = 0
        for (path, directory) in directories.prefix(Self.invariantCheckLimit) {
            precondition(!directory.registrationsByName.isEmpty, "\(path) is kept with no registrations")
            for (name, ids) in directory.registrationsByName {
                precondition(!ids.isEmpty, "\(path)/\(name) is kept with no registrations")
                for id in ids {
                    guard let registration = registrations[id] else { preconditionFailure("registration \(id) is listed but gone") }
                    precondition(
                        registration.directory == path && registration.fileName == name,
                        "registration \(id) is listed under \(path)/\(name), not its own place")
                    precondition(id < nextID, "registration \(id) is not below the next ID \(nextID)")
                    listed += 1
                }
            }
            if case .watched(let watch) = directory.status {
                precondition(pathsByWatch[watch]?.contains(path) == true, "\(path) is watched by \(watch), which does not list it")
            }
        }
        if isWhole {
            precondition(listed == registrations.count, "\(registrations.count) registrations, \(listed) listed")
        }
        for (watch, paths) in pathsByWatch.prefix(Self.invariantCheckLimit) {
            precondition(!paths.isEmpty, "watch \(watch) is kept with no paths")
            for path in paths {
                precondition(directories[path]?.status == .watched(watch), "watch \(watch) lists \(path), which is not watched by it")
            }
        }
        #endif
    }
}
