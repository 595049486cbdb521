import Foundation
import Glibc
import Testing
import TestSupport

/// `defaults watch` prints changes other processes make, as they happen.
@Suite("defaults watch", .ownThread)
struct WatchTests {
    /// A running `defaults watch` whose output lines are collected as they arrive; killed
    /// (SIGKILL, see ``Subprocess``) when the value goes away.
    struct Watcher {
        let process: Subprocess

        init(_ tool: ToolFixture, _ arguments: [String]) throws {
            process = try Subprocess(defaultsPath, ["watch"] + arguments, environment: tool.environment)
        }

        /// Waits until `count` lines have arrived; the deadline only bounds a failure.
        func waitFor(lines count: Int) -> [String] {
            process.waitForOutput(within: .seconds(30)) { $0.count >= count }
            return process.lines
        }

        func waitUntilReady() {
            process.waitForLine(in: .errors, within: .seconds(30)) { $0.hasPrefix("Watching ") }
        }
    }

    @Test("watch prints a line per change made by another process: key, old → new")
    func linePerChange() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.watch", "Greeting", "Hello"])
        let watcher = try Watcher(tool, ["com.example.watch"])
        watcher.waitUntilReady()
        try tool.output(["write", "com.example.watch", "Greeting", "Bonjour"])
        #expect(watcher.waitFor(lines: 1) == ["Greeting: Hello → Bonjour"])
        try tool.output(["write", "com.example.watch", "List", "-array", "a", "b c"])
        // Each change is waited for before the next: two commits that land before the
        // watcher reads the file arrive as one (see `commitsBeforeAWakeArriveAsOne`).
        #expect(watcher.waitFor(lines: 2) == ["Greeting: Hello → Bonjour", "List: (none) → (a, \"b c\")"])
        try tool.output(["delete", "com.example.watch", "Greeting"])
        #expect(watcher.waitFor(lines: 3) == ["Greeting: Hello → Bonjour", "List: (none) → (a, \"b c\")", "Greeting: Bonjour → (none)"])
    }

    @Test("watch DOMAIN KEY --json prints one JSON object per change of that key only")
    func jsonForOneKey() throws {
        let tool = try ToolFixture()
        let watcher = try Watcher(tool, ["--json", "com.example.watch", "Count"])
        watcher.waitUntilReady()
        try tool.output(["write", "com.example.watch", "Other", "-int", "1"])
        try tool.output(["write", "com.example.watch", "Count", "-int", "1"])
        // The first line is Count's: the change of Other was not printed.
        #expect(watcher.waitFor(lines: 1) == [#"{"key":"Count","old":null,"new":1,"origin":"anotherProcess"}"#])
        try tool.output(["write", "com.example.watch", "Count", "-int", "2"])
        #expect(watcher.waitFor(lines: 2) == [
            #"{"key":"Count","old":null,"new":1,"origin":"anotherProcess"}"#,
            #"{"key":"Count","old":1,"new":2,"origin":"anotherProcess"}"#,
        ])
    }

    /// A watcher delivers the difference between the version it had and the one it reads, so
    /// commits that all land before it wakes arrive as one change; `defaults history` keeps
    /// the versions in between. The watcher is stopped to make "before it wakes" certain.
    @Test("commits that land before the watcher wakes arrive as one change, from the old value to the newest")
    func commitsBeforeAWakeArriveAsOne() throws {
        let tool = try ToolFixture()
        let watcher = try Watcher(tool, ["com.example.watch", "Count"])
        watcher.waitUntilReady()
        watcher.process.signal(SIGSTOP)
        try tool.output(["write", "com.example.watch", "Count", "-int", "1"])
        try tool.output(["write", "com.example.watch", "Count", "-int", "2"])
        watcher.process.signal(SIGCONT)
        #expect(watcher.waitFor(lines: 1) == ["Count: (none) → 2"])
        // A later change follows on from the newest value: nothing of the two was queued.
        try tool.output(["write", "com.example.watch", "Count", "-int", "3"])
        #expect(watcher.waitFor(lines: 2) == ["Count: (none) → 2", "Count: 2 → 3"])
    }
}
