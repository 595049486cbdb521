import Foundation
import Glibc
import Synchronization
import TestSupport

/// Records each call of a directory watcher's handler, with the watched file's text at that
/// moment, so a test can wait for the call that saw a given change.
final class WatchProbe: Sendable {
    /// The watched file.
    let path: String
    /// What each call found in the file.
    private let calls = Mutex<[String?]>([])

    /// Creates a probe for the file at `path`.
    init(path: String) {
        self.path = path
    }

    /// The handler to register: it reads the file, as a real handler would, and records what
    /// it found (nil if it could not read it).
    var handler: @Sendable () -> Void {
        { [self] in
            let text = try? String(contentsOfFile: path, encoding: .utf8)
            calls.withLock { $0.append(text) }
        }
    }

    /// How many times the handler has run.
    var count: Int { calls.withLock { $0.count } }

    /// The file's text as each call found it, in order.
    var texts: [String?] { calls.withLock { $0 } }

    /// Waits until the handler has run at least `count` times; false if it has not within
    /// `limit`.
    func waitForCount(atLeast count: Int, within limit: Duration = .seconds(30)) async -> Bool {
        await eventually(within: limit) { self.count >= count }
    }

    /// Waits until a call of the handler has found `text` in the file; false if none has
    /// within `limit`.
    func waitForText(_ text: String, within limit: Duration = .seconds(30)) async -> Bool {
        await eventually(within: limit) { self.texts.contains(text) }
    }
}

/// Waits until `condition` holds, checking every few milliseconds; false if it still does
/// not after `limit`.
///
/// The limit is a bound on waiting for something that must happen, generous so a loaded
/// machine cannot fail a test; it is not a measurement.
/// ``eventually(within:_:)`` for synchronous tests: polls `condition` every 10 ms on this
/// thread until it holds or `limit` has passed.
func waitUntil(within limit: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    BlockingWait.check("polling with Thread.sleep")
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}

/// Replaces a file the way careful writers do: a temporary file beside it, renamed over it.
func replaceByRename(_ path: String, with text: String) throws {
    let temporary = (path as NSString).deletingLastPathComponent + "/.tmp-\(UUID().uuidString)"
    try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
    // rename(2), not FileManager's move, which refuses to replace an existing file.
    try check(rename(temporary, path), "rename")
}

/// Rewrites a file in place: truncate, write, close, on the same inode.
func rewriteInPlace(_ path: String, with text: String) throws {
    guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}
