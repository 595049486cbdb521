import Foundation
import Glibc
import Synchronization
import Testing

/// `defaults watch` prints changes other processes make, as they happen.
@Suite("defaults watch")
struct WatchTests {
    /// A running `defaults watch` whose output lines are collected as they arrive.
    final class Watcher: Sendable {
        let process: Process
        private let lines = Mutex<[String]>([])
        private let errors = Mutex<[String]>([])

        init(_ tool: ToolFixture, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: defaultsPath)
            process.arguments = ["watch"] + arguments
            process.environment = tool.environment
            let output = Pipe(), errorOutput = Pipe()
            process.standardOutput = output
            process.standardError = errorOutput
            self.process = process
            try process.run()
            // Weakly: the reading threads run until the pipes close, which is when deinit
            // has killed the process; a strong reference would keep both alive for ever.
            Self.collect(output.fileHandleForReading) { [weak self] line in self?.lines.withLock { $0.append(line) } }
            Self.collect(errorOutput.fileHandleForReading) { [weak self] line in self?.errors.withLock { $0.append(line) } }
        }

        private static func collect(_ handle: FileHandle, _ append: @escaping @Sendable (String) -> Void) {
            Thread {
                var buffer: [UInt8] = []
                // availableData returns what has arrived; read(upToCount:) would wait for all 4096.
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    buffer.append(contentsOf: chunk)
                    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeSubrange(...newline)
                        append(line)
                    }
                }
            }.start()
        }

        /// Waits until `count` lines have arrived; the deadline only bounds a failure.
        func waitFor(lines count: Int) -> [String] {
            wait { lines.withLock { $0.count >= count } }
            return lines.withLock { $0 }
        }

        func waitUntilReady() {
            wait { errors.withLock { $0.contains { $0.hasPrefix("Watching ") } } }
        }

        private func wait(_ condition: () -> Bool) {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition() && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }

        deinit {
            // SIGKILL, not SIGTERM: a test process that has run a ServiceGroup ignores
            // SIGTERM (swift-service-lifecycle's signal handling sets SIG_IGN), and ignored
            // signals are inherited by every child it starts afterwards.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
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
        kill(watcher.process.processIdentifier, SIGSTOP)
        try tool.output(["write", "com.example.watch", "Count", "-int", "1"])
        try tool.output(["write", "com.example.watch", "Count", "-int", "2"])
        kill(watcher.process.processIdentifier, SIGCONT)
        #expect(watcher.waitFor(lines: 1) == ["Count: (none) → 2"])
        // A later change follows on from the newest value: nothing of the two was queued.
        try tool.output(["write", "com.example.watch", "Count", "-int", "3"])
        #expect(watcher.waitFor(lines: 2) == ["Count: (none) → 2", "Count: 2 → 3"])
    }
}
