import Foundation
import Synchronization

/// The lines a child process writes to a pipe, collected by a thread of their own as they
/// arrive, each with the moment it was read.
///
/// A dedicated thread, not a task: the reads block, and a blocked task would hold one of the
/// few threads the test runner's tasks share.
final class CollectedLines: Sendable {
    /// The lines read so far, with when each arrived.
    private let lines = Mutex<[(text: String, time: ContinuousClock.Instant)]>([])

    /// Starts reading `handle` until end of file.
    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while let line = readLine(from: handle) {
                let now = ContinuousClock.now
                lines.withLock { $0.append((line, now)) }
            }
        }
        thread.start()
    }

    /// The lines so far, without their newlines.
    var texts: [String] { lines.withLock { $0.map(\.text) } }

    /// When the first line equal to `text` arrived; nil if none has yet.
    func arrival(of text: String) -> ContinuousClock.Instant? {
        lines.withLock { $0.first { $0.text == text }?.time }
    }
}
