package import Dispatch
package import SystemPackage

extension WatchLoop {
    /// Where the loop is in its life.
    package enum Phase: Equatable {
        /// No registration yet: no thread, no descriptors.
        case idle
        /// The thread runs (or is about to).
        case running
        /// Asked to stop: the thread closes the descriptors at its next turn.
        case stopping
        /// The descriptors are closed and the thread has ended (or never started).
        case stopped
    }

    /// What the thread waits for next.
    package struct Wait {
        /// The inotify instance, if there is one.
        package let inotify: FileDescriptor?
        /// The self-pipe's read end, if it could be made.
        package let wakeReadEnd: FileDescriptor?
        /// How long to wait at most; nil waits until a descriptor is readable.
        package let timeout: Duration?
    }

    /// The result of trying to watch a directory.
    package struct Outcome {
        /// How the directory is tracked now.
        package let status: WatchTable.Status
        /// Why it falls back to polling, if it does.
        package let warning: String?
    }

    /// Handler calls collected for one turn: each registration once, in first-seen order.
    package struct Calls {
        /// The registrations to call, in order.
        package private(set) var ids: [WatchTable.RegistrationID] = []
        /// The same, for finding duplicates.
        private var seen: Set<WatchTable.RegistrationID> = []

        /// Adds registrations not already collected.
        package mutating func add(_ registrations: [WatchTable.RegistrationID]) {
            for id in registrations where seen.insert(id).inserted { ids.append(id) }
        }
    }

    /// Everything the loop's threads share, guarded by ``WatchLoop/state``.
    package struct State {
        /// The registrations and directories.
        package var table = WatchTable()
        /// Where the loop is in its life.
        package var phase = Phase.idle
        /// The inotify instance; nil before the first registration, after the stop, or
        /// when inotify is unavailable (then every directory is polled).
        package var inotify: FileDescriptor?
        /// The self-pipe's read end, which the thread polls.
        package var wakeReadEnd: FileDescriptor?
        /// The self-pipe's write end; a byte written here wakes the thread.
        package var wakeWriteEnd: FileDescriptor?
        /// The watcher thread, once it runs.
        package var threadID: UInt?
        /// The registration whose handler the thread is calling, if any.
        package var runningRegistration: WatchTable.RegistrationID?
        /// Threads in `cancel` waiting for ``runningRegistration``'s call to return.
        package var cancelWaiters: [DispatchSemaphore] = []
        /// Set by a simulated overflow; handled at the thread's next turn.
        package var isOverflowPending = false
        /// Directories found again outside the thread (``WatchLoop/retryNow(_:)``) whose
        /// handlers the thread calls at its next turn.
        package var directoriesToAnnounce: [String] = []
        /// When missing directories are looked for next; nil while none is missing.
        package var nextRetry: ContinuousClock.Instant?
        /// When each missing directory is looked for next, and the wait before the look
        /// after that: it doubles from ``WatchLoop/retryInterval`` up to
        /// ``WatchLoop/pollingInterval`` while the directory stays missing. A process that has
        /// opened many domains whose directories do not exist (a long test run: thousands)
        /// would otherwise open every one of them ten times a second. A directory this
        /// process creates is looked for at once (``WatchLoop/retryNow(_:)``), whatever its
        /// wait.
        package var missingRetries: [String: (due: ContinuousClock.Instant, wait: Duration)] = [:]
        /// When polled directories' handlers are called next; nil while none is polled.
        package var nextPoll: ContinuousClock.Instant?
        /// Work other threads handed to the thread (``WatchLoop/perform(_:)``), run in order
        /// after the turn's handlers.
        package var jobs: [WatchLoop.Job] = []

        /// An idle loop's state: no registrations, no descriptors.
        package init() {}

        /// Creates the inotify instance and the self-pipe on first use.
        ///
        /// - Returns: Whether the caller must start the thread (exactly one caller is told
        ///   so), and a warning if inotify is unavailable and everything will be polled.
        package mutating func startIfNeeded() -> (startsThread: Bool, warning: String?) {
            guard phase == .idle else { return (false, nil) }
            phase = .running
            var warning: String?
            do {
                inotify = try SystemCalls.makeInotifyInstance()
            } catch {
                warning = "inotify is unavailable (inotify_init1: \(error))"
            }
            // Without the pipe the thread cannot be woken, so it looks at the table every
            // retry interval instead (see `nextWait`); slower to react, never wrong.
            if let pipe = try? FileDescriptor.pipe(options: [.nonBlocking, .closeOnExec]) {
                (wakeReadEnd, wakeWriteEnd) = (pipe.readEnd, pipe.writeEnd)
            }
            return (true, warning)
        }

        /// Tries to watch a directory: one `inotify_add_watch`, classified.
        ///
        /// A path that does not lead to a directory yet (or that this user cannot search) is
        /// missing, to be retried. A directory on a network or FUSE file system is polled
        /// with a warning, because inotify there misses changes made by other machines or by
        /// the server. Anything else that fails, above all `ENOSPC` when the watch limit is
        /// reached, falls back to polling with a warning too.
        package func establish(_ path: String) -> Outcome {
            guard let inotify else { return Outcome(status: .polled, warning: nil) }
            // One stat on the plain path first: a process retries every missing directory of
            // every store it holds ten times a second, and building a FilePath and checking
            // the mount table for each made that tick the watcher thread's main work in a
            // process with many stores (a test run: seconds of delay for every event).
            guard SystemCalls.isSearchableDirectory(path) else { return Outcome(status: .missing, warning: nil) }
            if let type = MountTable.typeChangedElsewhere(holding: path) {
                return Outcome(
                    status: .polled,
                    warning: "\(path) is on a \(type) file system, where inotify does not see changes made "
                        + "by other machines or by the file system's server")
            }
            do {
                let watch = try SystemCalls.addWatch(FilePath(path), for: WatchLoop.directoryEvents, to: inotify)
                return Outcome(status: .watched(watch), warning: nil)
            } catch {
                switch error {
                case .noSuchFileOrDirectory, .notDirectory, .permissionDenied, .tooManySymbolicLinkLevels,
                    .fileNameTooLong:
                    return Outcome(status: .missing, warning: nil)
                case .noSpace:
                    return Outcome(
                        status: .polled,
                        warning: "\(path) cannot be watched (inotify_add_watch: \(error); "
                            + "the limit fs.inotify.max_user_watches is reached)")
                default:
                    return Outcome(status: .polled, warning: "\(path) cannot be watched (inotify_add_watch: \(error))")
                }
            }
        }

        /// Records how a directory is tracked now, removing a watch nobody uses any more.
        package mutating func record(_ outcome: Outcome, for path: String) {
            guard let unused = table.setStatus(outcome.status, of: path), let inotify else { return }
            // EINVAL: the kernel already dropped it.
            try? SystemCalls.removeWatch(unused, from: inotify)
        }

        /// Wakes the thread through the self-pipe.
        package func wake() {
            guard let wakeWriteEnd else { return }
            let byte: UInt8 = 1
            // EAGAIN means the pipe is full of wake-ups already: the thread will wake anyway.
            _ = try? withUnsafeBytes(of: byte) { buffer in try Errno.typed { try wakeWriteEnd.write(buffer) } }
        }

        /// Arms the retry and polling deadlines that are needed and disarms the others.
        ///
        /// - Returns: Whether a deadline was armed that the thread's current wait does not
        ///   know about, so it must be woken.
        package mutating func scheduleTimers(now: ContinuousClock.Instant) -> Bool {
            var armed = false
            if table.containsDirectory(where: { $0 == .missing }) {
                if nextRetry == nil {
                    nextRetry = now + WatchLoop.retryInterval
                    armed = true
                }
            } else {
                nextRetry = nil
            }
            if table.containsDirectory(where: { $0 == .polled }) {
                if nextPoll == nil {
                    nextPoll = now + WatchLoop.pollingInterval
                    armed = true
                }
            } else {
                nextPoll = nil
            }
            return armed
        }

        /// What the thread waits for next; nil when it must end, after closing the
        /// descriptors (only the thread does, so no other thread can use a closed one).
        package mutating func nextWait(now: ContinuousClock.Instant) -> Wait? {
            switch phase {
            case .idle, .running:
                break
            case .stopping:
                for descriptor in [inotify, wakeReadEnd, wakeWriteEnd].compactMap({ $0 }) {
                    try? descriptor.close()
                }
                (inotify, wakeReadEnd, wakeWriteEnd) = (nil, nil, nil)
                phase = .stopped
                return nil
            case .stopped:
                return nil
            }
            var timeout = [nextRetry, nextPoll].compactMap { $0 }.min().map { max(.zero, $0 - now) }
            if !jobs.isEmpty { timeout = .zero }
            if wakeReadEnd == nil { timeout = min(timeout ?? WatchLoop.retryInterval, WatchLoop.retryInterval) }
            return Wait(inotify: inotify, wakeReadEnd: wakeReadEnd, timeout: timeout)
        }

        /// The missing directories due for a look at this turn (none before the retry deadline),
        /// for the thread to look at outside the lock; it then hands them to
        /// ``advance(with:now:checked:appeared:)`` with those it found.
        package mutating func missingDirectoriesDue(now: ContinuousClock.Instant) -> [String] {
            guard let due = nextRetry, now >= due else { return [] }
            nextRetry = nil
            let missing = table.directories(where: { $0 == .missing })
            if missingRetries.count > missing.count {
                // Directories found or no longer registered keep no schedule.
                let current = Set(missing)
                missingRetries = missingRetries.filter { current.contains($0.key) }
            }
            return missing.filter { path in missingRetries[path].map { now >= $0.due } ?? true }
        }

        /// One turn of the thread: applies the events read, a pending overflow, and the
        /// retry and polling deadlines that are due. `checked` are the missing directories the
        /// thread looked at for this turn and `appeared` those of them it found.
        ///
        /// - Returns: The handlers to call, and a polling warning if a directory just fell
        ///   back to polling.
        package mutating func advance(
            with events: [SystemCalls.WatchEvent], now: ContinuousClock.Instant, checked: [String] = [], appeared: Set<String> = []
        ) -> (calls: [WatchTable.RegistrationID], warning: String?) {
            var calls = Calls()
            var warning: String?
            var lost: [String] = []
            for event in events {
                if event.events.contains(.queueOverflowed) {
                    isOverflowPending = true
                } else if !event.events.isDisjoint(with: [.watchRemoved, .watchedDeleted, .watchedMoved, .watchedUnmounted]) {
                    // The directory is gone from its path: its files are gone with it, so
                    // the handlers hear of it now, and again once it is back.
                    let paths = table.forget(event.watch)
                    if !paths.isEmpty, event.events.contains(.watchedMoved), let inotify {
                        // The watch would follow the directory to its new name; stop it.
                        try? SystemCalls.removeWatch(event.watch, from: inotify)
                    }
                    for path in paths { calls.add(table.registrations(in: path)) }
                    lost += paths
                } else if let name = event.name {
                    for path in table.paths(watchedBy: event.watch).sorted() {
                        calls.add(table.registrations(in: path, named: name))
                    }
                }
            }
            for path in directoriesToAnnounce { calls.add(table.registrations(in: path)) }
            directoriesToAnnounce = []
            if isOverflowPending {
                isOverflowPending = false
                // Lost events may include a directory's removal: check every watch by
                // adding it again (the same inode gives the same descriptor back), then
                // let every handler re-read its file.
                for path in table.directories(where: { if case .watched = $0 { true } else { false } }) {
                    let outcome = establish(path)
                    warning = warning ?? outcome.warning
                    record(outcome, for: path)
                }
                calls.add(table.allRegistrations)
            }
            /// Tries a missing directory again; once it is watched (or polled), its files may
            /// have changed while nobody looked, so its handlers are called.
            func retry(_ path: String) {
                guard table.status(of: path) == .missing else { return }
                let outcome = establish(path)
                warning = warning ?? outcome.warning
                record(outcome, for: path)
                if outcome.status != .missing { calls.add(table.registrations(in: path)) }
            }
            // At once for directories just lost: `rm -rf dir; mkdir dir` may be over already.
            for path in lost { retry(path) }
            // The missing directories due for a look were looked at by the thread before this
            // turn, outside the lock (``missingDirectoriesDue(now:)``): those that exist now
            // are watched, the others wait twice as long as last time, up to the poll interval.
            for path in checked where table.status(of: path) == .missing {
                if appeared.contains(path) {
                    retry(path)
                } else {
                    let wait = min((missingRetries[path]?.wait ?? WatchLoop.retryInterval) * 2, WatchLoop.pollingInterval)
                    missingRetries[path] = (now + wait, wait)
                }
            }
            if let due = nextPoll, now >= due {
                nextPoll = nil
                for path in table.directories(where: { $0 == .polled }) {
                    // inotify may work for it again (watches freed below the limit).
                    if inotify != nil { record(establish(path), for: path) }
                    calls.add(table.registrations(in: path))
                }
            }
            _ = scheduleTimers(now: now)
            return (calls.ids, warning)
        }
    }
}
