/// The watcher's bookkeeping: which directories are watched and how, which file names in
/// them have handlers, and which inotify watch stands for which directories.
///
/// Pure data, no system calls: ``WatchLoop`` makes the calls and records their outcome
/// here, under its lock. Directories are keyed by path as the caller spelled it (trailing
/// slashes removed). Two spellings of one directory, through a symbolic link say, are two
/// entries, but the kernel gives them the same watch descriptor, because it keeps one watch
/// per inode; so a descriptor maps to a set of paths, and an event is delivered to each.
package struct WatchTable {
    /// Identifies one registration for the lifetime of the process.
    package typealias RegistrationID = UInt64
    /// A registration's callback.
    package typealias Handler = @Sendable () -> Void

    /// How a directory is kept track of.
    package enum Status: Equatable {
        /// An inotify watch reports its changes.
        case watched(SystemCalls.WatchDescriptor)
        /// It does not exist (or cannot be reached) yet; watching is retried until it does.
        case missing
        /// It cannot be watched with inotify, so its handlers are called on every poll.
        case polled
    }

    /// One watched directory.
    package struct Directory {
        /// How it is tracked.
        package var status: Status
        /// The registrations of each file name, in registration order.
        package var registrationsByName: [String: [RegistrationID]] = [:]
    }

    /// One registration: where it watches and what it calls.
    package struct Registration {
        /// The directory's path, as the table keys it.
        package let directory: String
        /// The file's name in it.
        package let fileName: String
        /// What to call.
        package let handler: Handler
    }

    /// The directories with registrations, by path.
    package private(set) var directories: [String: Directory] = [:]
    /// The directories each kernel watch stands for: those whose status is `.watched` with it.
    package private(set) var pathsByWatch: [SystemCalls.WatchDescriptor: Set<String>] = [:]
    /// The live registrations.
    package private(set) var registrations: [RegistrationID: Registration] = [:]
    /// The ID the next registration gets; IDs are never reused.
    package private(set) var nextID: RegistrationID = 1

    /// Records a registration.
    ///
    /// - Returns: Its ID, and whether its directory is new to the table (then it starts as
    ///   ``Status/missing`` and the caller must try to watch it and record the outcome).
    package mutating func add(
        directory: String, fileName: String, handler: @escaping Handler
    ) -> (id: RegistrationID, isNewDirectory: Bool) {
        defer { _checkInvariants() }
        let id = nextID
        nextID += 1
        registrations[id] = Registration(directory: directory, fileName: fileName, handler: handler)
        let isNewDirectory = directories[directory] == nil
        directories[directory, default: Directory(status: .missing)].registrationsByName[fileName, default: []].append(id)
        return (id, isNewDirectory)
    }

    /// Forgets a registration; nothing happens if it is already gone.
    ///
    /// - Returns: The watch that no directory needs any more, if this was its directory's last
    ///   registration and no other path shares the watch: the caller removes it.
    package mutating func remove(_ id: RegistrationID) -> SystemCalls.WatchDescriptor? {
        defer { _checkInvariants() }
        guard let registration = registrations.removeValue(forKey: id),
            var directory = directories[registration.directory]
        else { return nil }
        directory.registrationsByName[registration.fileName]?.removeAll { $0 == id }
        if directory.registrationsByName[registration.fileName]?.isEmpty == true {
            directory.registrationsByName[registration.fileName] = nil
        }
        guard directory.registrationsByName.isEmpty else {
            directories[registration.directory] = directory
            return nil
        }
        directories[registration.directory] = nil
        return detach(registration.directory, from: directory.status)
    }

    /// The handler of a registration that has not been removed.
    package func handler(for id: RegistrationID) -> Handler? {
        registrations[id]?.handler
    }

    /// The status of a directory in the table.
    package func status(of directory: String) -> Status? {
        directories[directory]?.status
    }

    /// Records how a directory is now tracked.
    ///
    /// - Returns: The watch it used before, if no path uses that watch any more: the caller
    ///   removes it from the kernel, or it would keep reporting a directory nobody tracks
    ///   (one that was moved away, say).
    package mutating func setStatus(_ status: Status, of path: String) -> SystemCalls.WatchDescriptor? {
        // The common call, a missing directory retried and still missing, changes nothing:
        // checked only past this point, so the retry tick stays cheap in debug builds too.
        guard let old = directories[path]?.status, old != status else { return nil }
        defer { _checkInvariants() }
        directories[path]?.status = status
        if case .watched(let watch) = status { pathsByWatch[watch, default: []].insert(path) }
        return detach(path, from: old)
    }

    /// Marks every directory of a watch that the kernel has dropped (or that must not be
    /// trusted any more) as missing, and forgets the watch.
    ///
    /// - Returns: The directories that were using it.
    package mutating func forget(_ watch: SystemCalls.WatchDescriptor) -> [String] {
        defer { _checkInvariants() }
        guard let paths = pathsByWatch.removeValue(forKey: watch) else { return [] }
        for path in paths { directories[path]?.status = .missing }
        return paths.sorted()
    }

    /// The directories reported by a watch.
    package func paths(watchedBy watch: SystemCalls.WatchDescriptor) -> Set<String> {
        pathsByWatch[watch] ?? []
    }

    /// The directories with a status that passes `matches`, sorted.
    package func directories(where matches: (Status) -> Bool) -> [String] {
        directories.filter { matches($0.value.status) }.keys.sorted()
    }

    /// Whether any directory has a status that passes `matches`.
    package func containsDirectory(where matches: (Status) -> Bool) -> Bool {
        directories.values.contains { matches($0.status) }
    }

    /// The registrations for one file name in a directory, oldest first.
    package func registrations(in directory: String, named fileName: String) -> [RegistrationID] {
        directories[directory]?.registrationsByName[fileName] ?? []
    }

    /// Every registration in a directory, oldest first.
    package func registrations(in directory: String) -> [RegistrationID] {
        (directories[directory]?.registrationsByName.values.joined()).map { $0.sorted() } ?? []
    }

    /// Every registration, oldest first.
    package var allRegistrations: [RegistrationID] {
        registrations.keys.sorted()
    }

    /// Drops `path` from the watch in `status`, if it had one.
    ///
    /// - Returns: That watch, if `path` was the last directory using it.
    private mutating func detach(_ path: String, from status: Status) -> SystemCalls.WatchDescriptor? {
        guard case .watched(let watch) = status, var paths = pathsByWatch[watch] else { return nil }
        paths.remove(path)
        if paths.isEmpty {
            pathsByWatch[watch] = nil
            return watch
        }
        pathsByWatch[watch] = paths
        return nil
    }
}
