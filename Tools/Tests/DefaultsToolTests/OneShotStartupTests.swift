import Foundation
import Testing
import TestSupport

/// A one-shot verb starts no watcher thread and no inotify instance (issue 38, item 5): the
/// tool opens its files with `fileWatching: .whenObserved`, and only `watch` observes. Seen
/// from outside, by the system calls the process makes, under strace.
@Suite(
    "defaults starts no watcher for a one-shot verb", .ownThread,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace (Tests/Scripts/install-dependencies.sh installs it)"))
struct OneShotStartupTests {
    /// The calls of `names` that `defaults arguments` made, by name, from strace's summary.
    static func calls(_ names: [String], of arguments: [String], in tool: ToolFixture) throws -> [String: Int] {
        let summary = tool.directory.file("strace.txt").path
        let result = try run(
            "/usr/bin/strace", ["-f", "-c", "-o", summary, "-e", "trace=" + names.joined(separator: ","), defaultsPath] + arguments,
            environment: tool.environment)
        #expect(result.status == 0, "\(result.output)")
        var counts: [String: Int] = [:]
        for line in try String(contentsOfFile: summary, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "% time seconds usecs/call calls [errors] syscall": the name last, the calls fourth.
            guard fields.count >= 5, let name = fields.last.map(String.init), names.contains(name), let count = Int(fields[3]) else { continue }
            counts[name] = count
        }
        return counts
    }

    @Test("read makes no inotify instance and starts no thread")
    func readStartsNothing() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.app", "greeting", "hello"])
        let counts = try Self.calls(["inotify_init1", "clone3", "clone", "openat"], of: ["read", "com.example.app", "greeting"], in: tool)
        // The check sees the calls it counts: the read opened its files.
        #expect(counts["openat", default: 0] > 0, "\(counts)")
        #expect(counts["inotify_init1", default: 0] == 0, "\(counts)")
        #expect(counts["clone3", default: 0] + counts["clone", default: 0] == 0, "\(counts)")
    }

    /// A write's directory `fsync` runs on a Dispatch queue (ARCHITECTURE.md, Threads), whose
    /// worker thread is no watcher: only the inotify instance is counted.
    @Test("write and delete make no inotify instance", arguments: [
        ["write", "com.example.app", "count", "-int", "3"], ["delete", "com.example.app", "count"],
    ])
    func writesWatchNothing(_ arguments: [String]) throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.app", "count", "-int", "2"])
        try tool.output(["write", "com.example.app", "greeting", "hello"])
        let counts = try Self.calls(["inotify_init1", "openat"], of: arguments, in: tool)
        #expect(counts["openat", default: 0] > 0, "\(counts)")
        #expect(counts["inotify_init1", default: 0] == 0, "\(counts)")
        #expect(try tool.output(["read", "com.example.app"]).contains("count") == (arguments[0] == "write"))
    }
}
