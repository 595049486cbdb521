import Foundation
import Synchronization

/// Wake-ups for a process that watches some domain directories by polling (no inotify
/// instance left, a network or FUSE file system): one thread that sleeps on the commit
/// counters of every domain the process has open, with `futex_waitv`, and wakes the watcher
/// thread as soon as a library write raises a counter.
///
/// Linux allows 128 inotify instances per user by default, shared by every program the
/// user runs; past that, a process falls back to polling once a second. Library commits
/// raise a counter and wake its sleepers, so such a process sees them as quickly as an
/// inotify event would bring them; polling remains only for changes the library did not make
/// (hand edits, other programs). No daemon is involved: the counters are files every process
/// maps.
///
/// This thread only wakes: it reads no file, publishes nothing and runs no handler. The
/// watcher thread, the process's one door for other processes' changes, re-reads each domain
/// whose counter moved and delivers the changes (ARCHITECTURE.md, "Where callbacks run").
/// The inotify descriptor and the counters cannot be waited on by one system call, which is
/// why the sleeping is a thread of its own.
///
/// The thread starts with the first polling fallback and runs for the life of the process;
/// it sleeps at most a second at a time, then picks up domains opened meanwhile. Without
/// `futex_waitv` (Linux before 5.16) it ends at once and polling alone remains.
package enum CommitWaiter {
    /// Whether the thread was started.
    private static let isStarted = Atomic(false)

    /// How many times a raised counter woke the watcher.
    private static let wakeUps = Atomic(0)

    /// How many times a raised counter woke the watcher: tells a test that a change arrived
    /// through a counter and not through the once-a-second poll.
    package static var wakeUpCount: Int { wakeUps.load(ordering: .relaxed) }

    /// How long one sleep lasts before the list of domains is taken again.
    package static let sleepLimit: Duration = .seconds(1)

    /// The most words one sleep covers (the kernel's `FUTEX_WAITV_MAX`): the list's own
    /// word and 127 counters.
    package static let maximumCounters = 128

    /// Raised when a domain's counter opens, so the sleeping thread takes the new list.
    // Safety: the word is allocated once and only ever reached with atomic operations.
    nonisolated(unsafe) private static let listChanged: UnsafeMutablePointer<UInt32> = {
        let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        word.initialize(to: 0)
        return word
    }()

    /// Tells the thread, if it sleeps, that another counter is open.
    package static func counterOpened() {
        _ = SystemCalls.incrementShared(listChanged)
        if isStarted.load(ordering: .relaxed) { SystemCalls.wakeAll(listChanged) }
    }

    /// Has the thread start with the process's first polling fallback; called before a
    /// domain's first watch.
    package static func startOnPollingFallback() { _ = armed }

    /// The once-per-process registration behind ``startOnPollingFallback()``.
    private static let armed: Void = DirectoryWatcher.onPollingFallback { start() }

    /// Starts the thread, once per process.
    package static func start() {
        guard !isStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            SystemCalls.nameCurrentThread("prefs-commits")
            run()
        }
        thread.start()
    }

    private static func run() {
        while true {
            let listVersion = SystemCalls.loadShared(listChanged)
            let watched = Array(
                PersistentDomain.all.compactMap { domain in domain.commitCounter.map { (domain, $0) } }
                    .prefix(maximumCounters - 1))
            // Announced before the values are loaded: a writer raises, then looks for
            // sleepers; a sleeper announces, then loads. Either the writer sees the sleeper
            // and wakes it, or the sleeper loads the raised value and does not sleep.
            for (_, counter) in watched { _ = SystemCalls.incrementShared(counter.waiters) }
            let values = watched.map { $0.1.current }
            let outcome = SystemCalls.waitForChange(
                of: [listChanged] + watched.map { $0.1.word }, from: [listVersion] + values, timeout: sleepLimit)
            for (_, counter) in watched { SystemCalls.decrementShared(counter.waiters) }
            if outcome == .unsupported { return }
            let moved = watched.enumerated().filter { index, entry in entry.1.current != values[index] }.map { $0.element.0 }
            guard !moved.isEmpty else { continue }
            wakeUps.add(1, ordering: .relaxed)
            // The watcher re-reads them and delivers the changes; this thread goes back to sleep.
            DirectoryWatcher.shared.perform {
                for domain in moved { domain.refresher.refreshFromDisk() }
            }
        }
    }
}
