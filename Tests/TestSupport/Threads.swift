import Dispatch
import Foundation

/// Runs `body(index)` for each index below `count`, each on a new thread of its own, all at
/// once, and returns when every one has returned, blocking: for tests of what many threads
/// do to one store, lock or file.
///
/// `DispatchQueue.concurrentPerform` would run the bodies on the threads of
/// `DispatchQueue.global()`, which on Linux are the cooperative pool's that every test's
/// tasks share: a stress test held all of them for as long as it ran, and every test
/// without threads of its own waited (RELIABILITY.md, bug 13).
/// The caller blocks, so it runs under ``OwnThreadTrait`` (``BlockingWait`` checks).
package func onThreads(_ count: Int, _ body: @Sendable (Int) -> Void) {
    BlockingWait.check("waiting for \(count) threads to finish")
    // `body` runs only until this call returns, which waits for every thread to run it.
    withoutActuallyEscaping(body) { body in
        // The threads reach it through a box emptied after the wait: a `Thread` keeps its
        // block until the thread has exited, which may be after it signalled, and
        // withoutActuallyEscaping traps if the closure is still referenced when it returns.
        let box = Box(body)
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            Thread {
                box.body?(index)
                finished.leave()
            }.start()
        }
        finished.wait()
        box.body = nil
    }
}

/// The closure ``onThreads(_:_:)`` runs. It is written once more, after every thread has
/// read it and the group's wait has ordered those reads before the write.
private final class Box: @unchecked Sendable {
    var body: (@Sendable (Int) -> Void)?

    init(_ body: @escaping @Sendable (Int) -> Void) { self.body = body }
}
