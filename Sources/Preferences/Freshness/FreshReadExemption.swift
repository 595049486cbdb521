import Foundation

/// Threads on which a read must not wait to catch up with another process's commit.
///
/// A read that finds a domain's commit counter raised re-reads the file under the domain's
/// file lock. Two kinds of thread must not: the watcher thread, which never waits for that
/// lock (a write holding it may be waiting for another process's lock file, and every change
/// delivery would stall behind it), and a thread running a transaction's or `modify`'s body,
/// which holds that lock already. Their reads answer from the snapshot as before; the
/// watcher brings the change.
enum FreshReadExemption {
    private static let key = "swift-preferences.fresh-read-exemption"

    /// Whether the current thread is exempt.
    static var isActive: Bool {
        Thread.current.threadDictionary[key] != nil
    }

    /// Makes the current thread exempt for good (the watcher thread).
    static func exemptCurrentThread() {
        Thread.current.threadDictionary[key] = true
    }

    /// Runs `body` with the current thread exempt.
    static func during<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let dictionary = Thread.current.threadDictionary
        let wasActive = dictionary[key] != nil
        dictionary[key] = true
        defer { if !wasActive { dictionary[key] = nil } }
        return try body()
    }
}
