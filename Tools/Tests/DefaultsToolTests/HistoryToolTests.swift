import Foundation
import Glibc
import PropertyList
import Testing
import TestSupport

/// `defaults history`, `undo` and `restore`, and reads of a recovered domain (issue 18,
/// items 5 and 6).
@Suite("defaults history, undo and restore", .ownThread)
struct HistoryToolTests {
    static let domain = "com.example.history"

    /// The tool's own lines on standard error, without the library's warning that inotify is
    /// unavailable (other test processes on the machine may use up the user's instances).
    static func ownLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("swift-preferences: warning: inotify is unavailable") }
    }

    /// The bytes and inode of a file: equal when it was not touched.
    static func fingerprint(_ path: String) -> (Data?, UInt64) {
        var status = stat()
        let inode = lstat(path, &status) == 0 ? UInt64(status.st_ino) : 0
        return (FileManager.default.contents(atPath: path), inode)
    }

    @Test("history lists the current file then the generations, newest first, with time, writer and changed keys")
    func historyText() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "b", "-int", "2"])
        try tool.output(["write", Self.domain, "a", "-int", "3"])
        let lines = try tool.output(["history", Self.domain]).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let pattern = #/^(\d+)( \(current\))?  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+0000  writer pid \d+( \([^)]+\))?  changed: (.*)$/#
        let parsed = lines.compactMap { try? pattern.wholeMatch(in: $0) }
        #expect(parsed.count == 3, "\(lines)")
        #expect(parsed.map { String($0.output.1) } == ["3", "2", "1"])
        #expect(parsed.map { $0.output.2 != nil } == [true, false, false])
        #expect(parsed.map { String($0.output.4) } == ["a", "b", "a"])

        let filtered = try tool.output(["history", Self.domain, "b"]).split(separator: "\n")
        #expect(filtered.count == 1)
        #expect(filtered.first?.hasPrefix("2  ") == true)

        // A generation that does not decode: it says so, and the version after it cannot
        // say what changed (it is not the oldest kept, which generation 1 still is).
        try Data("not a property list".utf8).write(to: URL(fileURLWithPath: "\(tool.userDirectory)/.\(Self.domain).plist.history/1.plist"))
        let damaged = try tool.output(["history", Self.domain]).split(separator: "\n").map(String.init)
        #expect(damaged.count == 3)
        #expect(damaged.last?.contains("does not decode") == true, "\(damaged)")
        #expect(damaged.dropLast().last?.hasSuffix("changed: unknown (the version before it is not kept or does not decode)") == true, "\(damaged)")
    }

    @Test("history --json prints an array: generation, current, time, writer, pid, unit, changed, path")
    func historyJSON() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "b", "-int", "2"])
        let json = try tool.output(["history", "--json", Self.domain])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(array.map { $0["generation"] as? Int } == [2, 1])
        #expect(array.map { $0["current"] as? Bool } == [true, false])
        #expect(array.map { $0["writer"] as? String } == ["library", "library"])
        let pids = array.compactMap { $0["pid"] as? Int }
        // Two runs of the tool, two processes.
        #expect(pids.count == 2 && pids[0] != pids[1] && pids.allSatisfy { $0 > 0 })
        #expect(array.map { $0["changed"] as? [String] } == [["b"], ["a"]])
        #expect(array[0]["path"] as? String == tool.domainFile(Self.domain))
        #expect(array[1]["path"] as? String == "\(tool.userDirectory)/.\(Self.domain).plist.history/1.plist")
        #expect(array.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        let onlyA = try tool.output(["history", "--json", Self.domain, "a"])
        #expect((try JSONSerialization.jsonObject(with: Data(onlyA.utf8)) as? [[String: Any]])?.map { $0["generation"] as? Int } == [1])
    }

    @Test("undo restores the previous version as a new commit, and a second undo undoes the undo")
    func undoRoundTrip() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "a", "-int", "2"])
        let first = try tool.run(["undo", Self.domain])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.ownLines(first.stderr) == ["Restored \(Self.domain) to generation 1"])
        #expect(try tool.onDisk(Self.domain) == ["a": 1])
        try tool.output(["undo", Self.domain])
        #expect(try tool.onDisk(Self.domain) == ["a": 2])
        try tool.output(["undo", Self.domain])
        #expect(try tool.onDisk(Self.domain) == ["a": 1])
        // Every undo was a commit of its own.
        let numbers = try tool.output(["history", Self.domain]).split(separator: "\n").map { $0.prefix { $0 != " " } }
        #expect(numbers == ["5", "4", "3", "2", "1"])
    }

    @Test("restore N brings back any generation, and the version it replaced can be restored in turn")
    func restoreRoundTrip() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "b", "-int", "2"])
        try tool.output(["write", Self.domain, "c", "-int", "3"])
        try tool.output(["restore", Self.domain, "1"])
        #expect(try tool.onDisk(Self.domain) == ["a": 1])
        try tool.output(["restore", Self.domain, "3"])
        #expect(try tool.onDisk(Self.domain) == ["a": 1, "b": 2, "c": 3])
        try tool.output(["restore", Self.domain, "2"])
        #expect(try tool.onDisk(Self.domain) == ["a": 1, "b": 2])
    }

    @Test("restore of a generation that does not exist or does not decode exits 1, names it, and changes nothing")
    func restoreRefused() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "a", "-int", "2"])
        let path = tool.domainFile(Self.domain)
        let before = Self.fingerprint(path)
        let missing = try tool.run(["restore", Self.domain, "9"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no generation 9"), "\(missing.stderr)")
        #expect(missing.stderr.contains(".\(Self.domain).plist.history/9.plist"), "\(missing.stderr)")
        #expect(Self.fingerprint(path) == before)

        let generation = "\(tool.userDirectory)/.\(Self.domain).plist.history/1.plist"
        try Data("not a property list".utf8).write(to: URL(fileURLWithPath: generation))
        let corrupt = try tool.run(["restore", Self.domain, "1"])
        #expect(corrupt.status == 1)
        #expect(corrupt.stderr.contains(generation), "\(corrupt.stderr)")
        #expect(corrupt.stderr.contains("not a valid binary property list"), "\(corrupt.stderr)")
        #expect(Self.fingerprint(path) == before)
        #expect(try tool.output(["history", Self.domain]).contains("1  ") )

        let none = try tool.run(["undo", "com.example.never"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no earlier generation"), "\(none.stderr)")
        for arguments in [["restore", Self.domain, "0"], ["restore", Self.domain, "-1"]] {
            #expect(try tool.run(arguments).status != 0)
            #expect(Self.fingerprint(path) == before)
        }
    }

    @Test("restore refuses a history directory that is a link or writable by others, and names the current version's number as such")
    func restoreChecksTheHistoryDirectory() throws {
        let tool = try ToolFixture()
        for value in 1...3 { try tool.output(["write", Self.domain, "a", "-int", String(value)]) }
        let path = tool.domainFile(Self.domain)
        let before = Self.fingerprint(path)
        let current = try tool.run(["restore", Self.domain, "3"])
        #expect(current.status == 1)
        #expect(current.stderr.contains("generation 3 is the current version"), "\(current.stderr)")

        let history = "\(tool.userDirectory)/.\(Self.domain).plist.history"
        #expect(chmod(history, 0o777) == 0)
        let loose = try tool.run(["restore", Self.domain, "1"])
        #expect(loose.status == 1)
        #expect(loose.stderr.contains("group- or world-writable"), "\(loose.stderr)")
        #expect(Self.fingerprint(path) == before)
        #expect(chmod(history, 0o700) == 0)

        // A directory elsewhere, holding a generation of someone else's choosing, linked in.
        let elsewhere = try TemporaryDirectory()
        let planted = elsewhere.file("7.plist").path
        let plantedBytes = try BinaryPropertyListEncoder().encode(.dictionary(["a": "planted"]))
        #expect(FileManager.default.createFile(atPath: planted, contents: Data(plantedBytes)))
        #expect(chmod(planted, 0o600) == 0)
        #expect(rename(history, history + ".real") == 0)
        #expect(symlink(elsewhere.url.path, history) == 0)
        for arguments in [["restore", Self.domain, "7"], ["undo", Self.domain]] {
            let linked = try tool.run(arguments)
            #expect(linked.status == 1, "\(arguments)")
            #expect(linked.stderr.contains("symbolic link"), "\(linked.stderr)")
            #expect(Self.fingerprint(path) == before)
        }
        // A write still goes through, keeping no generation, and says so.
        let write = try tool.run(["write", Self.domain, "a", "-int", "4"])
        #expect(write.status == 0, "\(write.stderr)")
        #expect(Self.ownLines(write.stderr).contains { $0.hasPrefix("warning: no generation of \(path) is kept") && $0.contains("symbolic link") }, "\(write.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.url.path) == ["7.plist"])
    }

    @Test("a live store in another process sees a restore as ordinary changes")
    func watcherSeesRestore() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "a", "-int", "1"])
        try tool.output(["write", Self.domain, "a", "-int", "2"])
        try tool.output(["write", Self.domain, "b", "x"])
        let watcher = try WatchTests.Watcher(tool, [Self.domain])
        watcher.waitUntilReady()
        try tool.output(["restore", Self.domain, "1"])
        #expect(Set(watcher.waitFor(lines: 2)) == ["a: 2 → 1", "b: x → (none)"])
        try tool.output(["undo", Self.domain])
        #expect(Set(watcher.waitFor(lines: 4).dropFirst(2)) == ["a: 1 → 2", "b: (none) → x"])
    }

    @Test("read of a corrupt domain prints the newest good generation with a warning; explain names the generation")
    func recoveredRead() throws {
        let tool = try ToolFixture()
        try tool.output(["write", Self.domain, "Greeting", "Hello"])
        try tool.output(["write", Self.domain, "Greeting", "Bonjour"])
        let garbage: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        try tool.plant(garbage, domain: Self.domain)
        let read = try tool.run(["read", Self.domain])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "{\n    Greeting = Hello;\n}\n")
        #expect(Self.ownLines(read.stderr).count == 1, "\(read.stderr)")
        #expect(Self.ownLines(read.stderr).first?.hasPrefix("warning: \(Self.domain): ") == true, "\(read.stderr)")
        #expect(read.stderr.contains("generation 1"), "\(read.stderr)")
        #expect(read.stderr.contains(tool.domainFile(Self.domain)), "\(read.stderr)")
        #expect(try tool.output(["read", Self.domain, "Greeting"]) == "Hello\n")

        let explain = try tool.run(["explain", Self.domain, "Greeting"])
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.stdout.hasPrefix("Greeting in \(Self.domain) is Hello, from the app layer, generation 1 of its file, because the file is corrupt."), "\(explain.stdout)")
        #expect(explain.stdout.contains("* app (\(tool.domainFile(Self.domain)), generation 1): Hello"), "\(explain.stdout)")
        let json = try tool.output(["explain", "--json", Self.domain, "Greeting"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["generation"] as? Int == 1)
        // Reading changed nothing; the corrupt bytes are still there.
        #expect(FileManager.default.contents(atPath: tool.domainFile(Self.domain)) == Data(garbage))
        // history lists the corrupt current file with its problem.
        let history = try tool.output(["history", Self.domain])
        #expect(history.contains("does not decode"), "\(history)")
    }

    @Test("the new verbs are listed in help and in the unknown-verb message")
    func verbsListed() throws {
        let tool = try ToolFixture()
        let help = try tool.run(["--help"])
        for verb in ["history", "undo", "restore"] { #expect(help.stdout.contains(verb), "\(help.stdout)") }
        let unknown = try tool.run(["hstory", Self.domain])
        #expect(unknown.stderr.contains("history, import"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("restore, undo, watch"), "\(unknown.stderr)")
    }
}
