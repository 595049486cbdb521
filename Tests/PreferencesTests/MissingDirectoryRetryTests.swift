import Foundation
@testable import Preferences
import Testing
import TestSupport

/// The watcher looks for a missing directory ten times a second at first and ever less often
/// while it stays missing, and it looks outside its lock: a process that has opened thousands
/// of domains in directories that do not exist (a whole test run) once held the watcher's lock
/// for most of every tenth of a second, so writers that had just created a directory, and with
/// them the test runner's few threads, waited minutes for it (issue 37, item 0).
@Suite("Missing directories are retried with a growing wait")
struct MissingDirectoryRetryTests {
    /// A loop state, never started, with `count` registrations in missing directories.
    static func state(missing count: Int, under root: String) -> WatchLoop.State {
        var state = WatchLoop.State()
        for index in 0..<count {
            _ = state.table.add(directory: "\(root)/missing-\(index)", fileName: "d.plist", handler: {})
        }
        return state
    }

    /// One turn of the thread at `now`, as `WatchLoop.run` takes it, finding none of the
    /// missing directories; returns how many it looked for.
    static func turn(_ state: inout WatchLoop.State, at now: ContinuousClock.Instant, appeared: (String) -> Bool = { _ in false }) -> Int {
        let due = state.missingDirectoriesDue(now: now)
        _ = state.advance(with: [], now: now, checked: due, appeared: Set(due.filter(appeared)))
        return due.count
    }

    @Test("a directory that stays missing is looked for after 0.1, 0.2, 0.4, 0.8 s, then every second")
    func waitsDouble() throws {
        let directory = try TemporaryDirectory()
        var state = Self.state(missing: 1, under: directory.url.path)
        let path = directory.url.path + "/missing-0"
        let start = ContinuousClock.now
        var now = start
        var looks: [Duration] = []
        // Every tick of the retry timer for 5 s, as the thread turns.
        _ = state.scheduleTimers(now: now)
        while now < start + .seconds(5) {
            now += .milliseconds(10)
            let due = state.missingDirectoriesDue(now: now)
            if !due.isEmpty {
                #expect(due == [path])
                looks.append(now - start)
            }
            _ = state.advance(with: [], now: now, checked: due, appeared: [])
        }
        let gaps = zip(looks.dropFirst(), looks).map { $0 - $1 }
        // The first look one retry interval after the timer was armed; then the wait doubles
        // (each look also waits for the next tick of the 0.1 s timer) and stops at 1 s.
        #expect(looks.first.map { $0 >= .milliseconds(100) && $0 <= .milliseconds(110) } == true, "\(looks)")
        #expect(gaps.count >= 5, "\(looks)")
        for (gap, least) in zip(gaps, [200, 400, 800, 1000, 1000].map { Duration.milliseconds($0) }) {
            #expect(gap >= least && gap <= least + .milliseconds(110), "\(gaps)")
        }
        #expect(gaps.allSatisfy { $0 <= .milliseconds(1110) }, "\(gaps)")
    }

    @Test("a directory that appears is watched at the next look and its handlers are called; the others keep waiting")
    func appearedIsWatched() throws {
        let directory = try TemporaryDirectory()
        var state = Self.state(missing: 3, under: directory.url.path)
        _ = state.startIfNeeded()
        defer { _ = state.nextWait(now: .now) }
        let found = directory.url.path + "/missing-1"
        try FileManager.default.createDirectory(atPath: found, withIntermediateDirectories: false)
        var now = ContinuousClock.now
        _ = state.scheduleTimers(now: now)
        now += .milliseconds(100)
        let due = state.missingDirectoriesDue(now: now)
        #expect(due.count == 3)
        let appeared = Set(due.filter { FileManager.default.fileExists(atPath: $0) })
        #expect(appeared == [found])
        let (calls, _) = state.advance(with: [], now: now, checked: due, appeared: appeared)
        #expect(calls.count == 1)
        if case .watched = state.table.status(of: found) {} else { Issue.record("\(found) is \(String(describing: state.table.status(of: found)))") }
        #expect(state.table.directories(where: { $0 == .missing }).count == 2)
        // Not due again before their doubled wait.
        #expect(Self.turn(&state, at: now + .milliseconds(100)) == 0)
        state.phase = .stopping
    }

    @Test("5,000 missing directories are looked for once, not again at the next tick of the retry timer")
    func manyMissingDirectories() throws {
        let directory = try TemporaryDirectory()
        var state = Self.state(missing: 5_000, under: directory.url.path)
        var now = ContinuousClock.now
        _ = state.scheduleTimers(now: now)
        now += .milliseconds(100)
        // Under the lock the thread only takes the due paths and hands back what it found;
        // it looks for them between the two, with no lock held (WatchLoop.run).
        #expect(Self.turn(&state, at: now) == 5_000)
        // At the next tick none is due: the 5,000 looks are not repeated ten times a second,
        // but twice as late as the last wait.
        #expect(Self.turn(&state, at: now + .milliseconds(100)) == 0)
        #expect(Self.turn(&state, at: now + .milliseconds(200)) == 5_000)
        #expect(Self.turn(&state, at: now + .milliseconds(400)) == 0)
        #expect(Self.turn(&state, at: now + .milliseconds(600)) == 5_000)
    }
}
