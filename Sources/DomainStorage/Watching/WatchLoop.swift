import Dispatch
import Foundation
import Synchronization
import SystemPackage

/// The watcher thread and the state it shares with the threads that register and cancel
/// watches.
///
/// Everything lives in one `ThreadLock`, and the rule that keeps it deadlock-free is that no
/// handler and no logging ever runs while it is held: the thread collects what to call under
/// the lock, lets go, and only then calls. System calls that must agree with the table
/// (adding and removing watches) are made under the lock, so a watch is never added by one
/// thread while another removes the same one.
///
/// The loop owns its descriptors: the inotify instance and the two ends of a self-pipe that
/// wakes the thread when the table changes in a way its wait does not cover (a directory that
/// must be retried, a simulated overflow, a stop). Only the thread closes them, once it has
/// seen the stop request, so no other thread can use a closed or reused descriptor.
package final class WatchLoop: Sendable {
    /// What inotify reports for a watched directory.
    ///
    /// - `closedAfterWriting`: an in-place rewrite or a `cp` over the file is finished (not
    ///   `IN_MODIFY`, which fires for every partial write).
    /// - `movedIn`: a new file renamed into place, the atomic replace every careful writer does.
    /// - `movedOut`, `deleted`: the file is gone.
    /// - `attributesChanged`: `chmod`/`chown` can make a file trusted or untrusted.
    /// - `watchedDeleted`, `watchedMoved`: the directory itself is gone from its path.
    /// - `onlyDirectory`: a file at the directory's path is not watched (as if missing).
    ///
    /// Not `IN_CREATE`: a file is created empty and filled afterwards, so a reload then would
    /// read nothing or a torn file; its `IN_CLOSE_WRITE` (or the rename that places it) comes
    /// once it is complete. The one creation missed is a hard link made into place with
    /// `link`/`ln`, which no writer of domain files does. Not `IN_DONT_FOLLOW`: a preferences
    /// directory is often a symbolic link (into a dotfiles repository, or a `/tmp` that is a
    /// link), and readers follow it to open the file, so the watch must see the same directory
    /// they read.
    package static let directoryEvents: SystemCalls.WatchEvents = [
        .closedAfterWriting, .movedIn, .movedOut, .deleted, .attributesChanged,
        .watchedDeleted, .watchedMoved, .onlyDirectory,
    ]

    /// How often a missing directory is looked for again: well under a second, yet only one
    /// `inotify_add_watch` per missing directory per tick, and only while one is missing.
    package static let retryInterval: Duration = .milliseconds(100)

    /// How often handlers are called in polling mode: every second, so a change is seen in at
    /// most about two.
    package static let pollingInterval: Duration = .seconds(1)

    /// The read buffer for events: 64 KiB holds at least 240 events (each at most 16 bytes
    /// plus a 256-byte name), so a burst is taken in few reads and handlers are called once
    /// per burst.
    package static let eventBufferSize = 64 * 1024

    /// The table, the descriptors and the thread's bookkeeping, shared by every thread.
    private let state = ThreadLock(State(), rank: .watcher)

    /// The thread's identifier (`SystemCalls.currentThread()`) while its body runs, else 0,
    /// which no thread has: only the thread itself stores it, so a relaxed load by the thread
    /// sees its own identifier and a load by any other thread cannot.
    private let runningThread = Atomic<UInt>(0)

    /// Creates an idle loop; the thread and descriptors come with the first registration.
    package init() {}

    /// Registers a handler for `fileName` in `directory`, starting the thread and the inotify
    /// instance on first use.
    ///
    /// The directory is watched (or found missing) before this returns, so any change after
    /// it reaches the handler.
    package func add(
        directory: String, fileName: String, handler: @escaping WatchTable.Handler
    ) -> WatchTable.RegistrationID {
        let (id, startsThread, warning) = state.withLock { state in
            let (startsThread, startWarning) = state.startIfNeeded()
            let (id, isNewDirectory) = state.table.add(directory: directory, fileName: fileName, handler: handler)
            var warning = startWarning
            if isNewDirectory {
                let outcome = state.establish(directory)
                warning = warning ?? outcome.warning
                state.record(outcome, for: directory)
            }
            // A missing or polled directory needs the thread to stop waiting without limit.
            if state.scheduleTimers(now: .now) { state.wake() }
            return (id, startsThread, warning)
        }
        if startsThread { startThread() }
        if let warning { DirectoryWatcher.warnPollingFallback(because: warning) }
        return id
    }

    /// Ends a registration: its handler is never started again.
    ///
    /// Called on another thread while the handler runs, this waits for that call to return;
    /// called on the watcher thread (from a handler, the registration's own or another's),
    /// it returns at once, because the only call that can be running is the caller's.
    package func cancel(_ id: WatchTable.RegistrationID) {
        let waiter: DispatchSemaphore? = state.withLock { state in
            if let unused = state.table.remove(id), let inotify = state.inotify {
                // EINVAL: the kernel already dropped it with its directory.
                try? SystemCalls.removeWatch(unused, from: inotify)
            }
            guard state.runningRegistration == id, state.threadID != SystemCalls.currentThread() else { return nil }
            let waiter = DispatchSemaphore(value: 0)
            state.cancelWaiters.append(waiter)
            return waiter
        }
        waiter?.wait()
    }

    /// Tries a missing directory again now, on the caller's thread; if it is watched now,
    /// the thread calls its handlers (its files may have changed while it was missing).
    package func retryNow(_ directory: String) {
        let warning = state.withLock { state -> String? in
            guard state.phase == .running, state.table.status(of: directory) == .missing else { return nil }
            let outcome = state.establish(directory)
            state.record(outcome, for: directory)
            if outcome.status != .missing {
                state.directoriesToAnnounce.append(directory)
                state.wake()
            }
            return outcome.warning
        }
        if let warning { DirectoryWatcher.warnPollingFallback(because: warning) }
    }

    /// Work handed to the thread.
    package typealias Job = @Sendable () -> Void

    /// Runs `job` on the watcher thread, after the handlers of its current turn, in the order
    /// jobs were handed over; starts the thread if it is not running yet.
    ///
    /// This is how work found on another thread reaches the thread that alone runs it: a
    /// read or a write that found another process's commit hands over its delivery. A loop
    /// that was stopped runs nothing more; the process's shared loop is never stopped.
    package func perform(_ job: @escaping Job) {
        let (startsThread, warning) = state.withLock { state -> (Bool, String?) in
            let (startsThread, warning) = state.startIfNeeded()
            guard state.phase == .running else { return (false, nil) }
            state.jobs.append(job)
            state.wake()
            return (startsThread, warning)
        }
        if startsThread { startThread() }
        if let warning { DirectoryWatcher.warnPollingFallback(because: warning) }
    }

    /// Whether the calling thread is this loop's thread, while it runs.
    ///
    /// One atomic load, no lock, so it may be asked anywhere, a critical section included.
    package var isCurrentThread: Bool {
        runningThread.load(ordering: .relaxed) == SystemCalls.currentThread()
    }

    /// Makes the thread handle a queue overflow, exactly as if the kernel had reported one.
    package func simulateOverflow() {
        state.withLock { state in
            guard state.phase == .running else { return }
            state.isOverflowPending = true
            state.wake()
        }
    }

    /// Asks the thread to close its descriptors and end; registrations left are inert.
    package func stop() {
        state.withLock { state in
            switch state.phase {
            case .idle: state.phase = .stopped
            case .running:
                state.phase = .stopping
                state.wake()
            case .stopping, .stopped: break
            }
        }
    }

    /// Starts the watcher thread.
    ///
    /// Nonisolated, like the whole type, so the closure is not isolated to any actor: a
    /// closure formed in main-actor code and run on another thread traps in Swift 6.
    private func startThread() {
        let thread = Thread { [self] in
            // Named from inside, by the system call (see SystemCalls.nameCurrentThread).
            SystemCalls.nameCurrentThread("prefs-watcher")
            run()
        }
        thread.start()
    }

    /// The thread's body: wait, read events, update the table, call handlers; until stopped.
    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Self.eventBufferSize, alignment: MemoryLayout<Int32>.alignment)
        defer { buffer.deallocate() }
        let thread = SystemCalls.currentThread()
        state.withLock { $0.threadID = thread }
        runningThread.store(thread, ordering: .relaxed)
        // Cleared before the identifier can be handed to another thread.
        defer { runningThread.store(0, ordering: .relaxed) }
        while let wait = state.withLock({ $0.nextWait(now: .now) }) {
            // The inotify instance first and the pipe last, each only if there is one.
            let descriptors = [wait.inotify, wait.wakeReadEnd].compactMap { $0 }
            var ready: [Bool]
            do {
                ready = try SystemCalls.waitForInput(descriptors, timeout: wait.timeout)
            } catch {
                // Only ENOMEM is possible here; waiting a little beats spinning.
                SystemCalls.sleep(for: Self.retryInterval)
                ready = Array(repeating: false, count: descriptors.count)
            }
            var events: [SystemCalls.WatchEvent] = []
            if let inotify = wait.inotify, ready.first == true {
                do {
                    events = try SystemCalls.readWatchEvents(from: inotify, into: buffer)
                } catch {
                    // Events that cannot be read are lost events: treat them like an overflow.
                    events = [SystemCalls.WatchEvent(watch: .init(rawValue: -1), events: .queueOverflowed, name: nil)]
                }
            }
            if let wakeReadEnd = wait.wakeReadEnd, ready.last == true {
                Self.drain(wakeReadEnd)
            }
            // Missing directories are looked for outside the lock: a process can hold many,
            // and a writer that has just created one waits for this lock (`retryNow`), as
            // does every registration.
            let checked = state.withLock { $0.missingDirectoriesDue(now: .now) }
            let appeared = Set(checked.filter { SystemCalls.isSearchableDirectory($0) })
            let (calls, warning) = state.withLock { $0.advance(with: events, now: .now, checked: checked, appeared: appeared) }
            if let warning { DirectoryWatcher.warnPollingFallback(because: warning) }
            deliver(calls)
            // Taken after the handlers: a job handed over during this turn may deliver what a
            // handler has just published.
            let jobs = state.withLock { state in
                defer { state.jobs.removeAll() }
                return state.jobs
            }
            for job in jobs { job() }
        }
    }

    /// Calls each registration's handler in turn, outside the lock, skipping those cancelled
    /// since they were collected.
    ///
    /// The check that a registration is still there and the note that its handler is running
    /// are one step under the lock, so `cancel` either comes first (and the handler is
    /// skipped) or sees it running (and waits for it, from another thread).
    private func deliver(_ calls: [WatchTable.RegistrationID]) {
        for id in calls {
            let handler = state.withLock { state -> WatchTable.Handler? in
                guard let handler = state.table.handler(for: id) else { return nil }
                state.runningRegistration = id
                return handler
            }
            guard let handler else { continue }
            handler()
            let waiters = state.withLock { state in
                state.runningRegistration = nil
                defer { state.cancelWaiters.removeAll() }
                return state.cancelWaiters
            }
            for waiter in waiters { waiter.signal() }
        }
    }

    /// Empties the self-pipe, which only ever carries wake-up bytes.
    private static func drain(_ pipe: FileDescriptor) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            let count = try? withUnsafeMutableBytes(of: &bytes) { buffer in
                try Errno.typed { try pipe.read(into: buffer) }
            }
            // Empty (EAGAIN), closed, or failed: either way there is nothing more to take.
            guard let count, count > 0 else { return }
        }
    }
}
