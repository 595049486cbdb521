import DeclaredSettings

/// Watches the directories of domain files with one inotify descriptor and one thread per
/// process.
///
/// A domain file is replaced by rename, which gives the name a new inode, so watching the
/// file would lose it at the first write: the directory is watched instead, once however many
/// files in it are registered, and each event is delivered by the name it carries. Events are
/// hints: a handler learns that its file *may* have changed and re-stats and re-reads it.
///
/// A directory that does not exist yet (the preferences directory appears with the first
/// write) or that is deleted or moved away is looked for every 100 ms until it is back, then
/// watched again, and its handlers are called because its files may have changed meanwhile.
/// Where inotify cannot be used (no instance: `EMFILE`, `ENOSYS`; no watch: `ENOSPC`) or
/// cannot be trusted (network and FUSE file systems, where other machines' and the server's
/// changes raise no event), the affected handlers are instead called every second, and the
/// process reports one warning.
///
/// Limits: a directory reached through a symbolic link stays watched at the link's old target
/// if the link is changed, and one whose parent directory is renamed is followed to its new
/// place, until the next overflow re-checks every watch; watching every ancestor would cost a
/// watch per path component for an event that preference directories do not see in practice.
///
/// Handlers run one at a time on the watcher thread, never while a lock is held, so a handler
/// may call ``watch(directory:fileName:handler:)`` and cancel registrations, its own included.
/// A handler that blocks holds up every other: keep them short.
package final class DirectoryWatcher: Sendable {
    /// The process's watcher; its thread and inotify descriptor are created on the first
    /// `watch` call.
    package static let shared = DirectoryWatcher()

    /// The thread, its descriptors and the table of registrations.
    package let loop = WatchLoop()

    /// Creates a watcher with its own thread and inotify descriptor, both made on the first
    /// `watch` call and ended when the watcher and its registrations are released.
    ///
    /// The library uses ``shared``; tests make their own so that one test's simulated overflow
    /// does not reach another test's handlers.
    package init() {}

    /// Stops the thread; reached only once every registration is gone, as each holds the
    /// watcher.
    deinit {
        loop.stop()
    }

    /// Calls `handler` (on the watcher thread, never while any lock is held) whenever the file
    /// `fileName` in `directory` may have changed.
    ///
    /// That is: written and closed, renamed into or out of the directory, deleted, its
    /// attributes changed; and also after a queue overflow, after the directory was
    /// (re)created, and on every poll in polling mode. Events are hints: the handler re-stats
    /// and re-reads the file itself. The watch is in place when this returns, so any later
    /// change reaches the handler. It lasts until the returned registration is released or
    /// cancelled.
    ///
    /// - Parameters:
    ///   - directory: An absolute path; trailing slashes are ignored. Symbolic links on the way
    ///     are followed, as a reader opening the file follows them.
    ///   - fileName: A single path component.
    /// - Precondition: `directory` is absolute and `fileName` is one component; both come from
    ///   validated domain locations, so anything else is a programmer error.
    package func watch(
        directory: String, fileName: String, handler: @escaping @Sendable () -> Void
    ) -> DirectoryWatcher.Registration {
        precondition(directory.hasPrefix("/"), "a watched directory must be absolute, not \"\(directory)\"")
        precondition(
            !fileName.isEmpty && fileName != "." && fileName != ".." && !fileName.contains("/")
                && !fileName.utf8.contains(0),
            "a watched file's name must be a single path component, not \"\(fileName)\"")
        let id = loop.add(directory: directory.trimmingTrailingSlashes(), fileName: fileName, handler: handler)
        return Registration(watcher: self, id: id)
    }

    /// Tells the watcher that `directory` may exist now because this process just created
    /// it (a domain's first write), so a missing directory is watched before this returns
    /// rather than at the next retry, up to 100 ms later: a change in that window, even the
    /// directory's removal, would otherwise go unseen. Cheap when the directory is watched.
    package func directoryMayHaveAppeared(_ directory: String) {
        loop.retryNow(directory.trimmingTrailingSlashes())
    }

    /// Runs `job` on the watcher thread, after the handlers of its current turn and after the
    /// jobs handed over before it (see ``WatchLoop/perform(_:)``).
    package func perform(_ job: @escaping @Sendable () -> Void) {
        loop.perform(job)
    }

    /// Whether the calling thread is this watcher's thread (`prefs-watcher`), the one that
    /// runs its handlers and the jobs handed over with ``perform(_:)``.
    package var isWatcherThread: Bool {
        loop.isCurrentThread
    }

    /// Traps, naming `rule`, unless the calling thread is this watcher's thread: as
    /// swift-nio's `preconditionInEventLoop` does for an event loop.
    ///
    /// For code that must run on the door thread only (the delivery of other processes'
    /// changes); the library checks it in debug builds (`#if DEBUG`) only. It takes no lock.
    package func preconditionOnWatcherThread(
        _ rule: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        precondition(isWatcherThread, "not on the watcher thread (prefs-watcher): \(rule())", file: file, line: line)
    }

    /// Makes the watcher behave exactly as if the kernel had reported an event queue overflow:
    /// every watch is checked and every handler is called once.
    ///
    /// A test hook: a real overflow (16,384 queued events here) cannot be produced on demand
    /// reliably.
    package func simulateOverflow() {
        loop.simulateOverflow()
    }
}
