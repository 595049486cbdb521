import Foundation
@testable import Preferences
import SystemPackage
import TestSupport
import Testing

/// New versions are written in a staging directory beside the domain files, so the directory
/// every process watches sees one event per commit: the rename.
@Suite("Staging directory")
struct StagingDirectoryTests {
    /// The names and events `directory` reports while `body` runs.
    private func events(in directory: String, during body: () async throws -> Void) async throws -> [(name: String, events: SystemCalls.WatchEvents)] {
        let inotify = try SystemCalls.makeInotifyInstance()
        defer { try? inotify.close() }
        _ = try SystemCalls.addWatch(FilePath(directory), for: WatchLoop.directoryEvents, to: inotify)
        try await body()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        return try SystemCalls.readWatchEvents(from: inotify, into: buffer).map { ($0.name ?? "", $0.events) }
    }

    /// The commits are made by a worker process, not by this one. Here other tests start
    /// programs all the time, and a program started while a commit's file is still open for
    /// writing holds that open file until its `exec`: the last close, and its
    /// `IN_CLOSE_WRITE`, can then come after the rename, under the domain's name (PROTOCOL.md,
    /// W5). A process that starts no programs while it commits, as the worker, raises exactly
    /// one event; one that closed its file after the rename would raise two every time.
    @Test("a commit raises exactly one event in the watched directory: the rename of the new file")
    func oneEventPerCommit() async throws {
        let fixture = try StoreFixture()
        // Commit counters in a runtime directory of the test's, as in a desktop session.
        try fixture.usePrivateRuntimeDirectory()
        let worker = try Subprocess(
            workerPath, ["write-on-request", "com.example.staged", "n"], environment: fixture.processEnvironment, input: .pipe)
        defer { worker.closeInput() }
        // Its first commit made the staging and history directories; the next ones are what
        // every later commit looks like.
        // Required, as each answer below: a request sent to a worker that has died would end
        // this whole process with SIGPIPE.
        try #require(await worker.waitForLine(within: .seconds(30)) { $0 == "ready" } != nil, "\(worker.lines) \(worker.errorOutput)")
        for round in 1...3 {
            let seen = try await events(in: fixture.userDirectory) {
                try worker.send("\(round)")
                try #require(await worker.waitForLine(within: .seconds(30)) { $0 == "\(round)" } != nil, "\(worker.errorOutput)")
            }
            #expect(seen.count == 1, "events: \(seen)")
            #expect(seen.first?.name == "com.example.staged.plist")
            #expect(seen.first.map { $0.events.contains(.movedIn) } == true)
        }
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.staged")) == ["n": 3])
        // Temporary files are made in the staging directory; none is left there or beside the file.
        let staging = fixture.userDirectory + "/" + DomainFile.stagingDirectoryName
        let entries = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory)
            + FileManager.default.contentsOfDirectory(atPath: staging)
        #expect(entries.contains(DomainFile.stagingDirectoryName), "the commits went through the staging directory")
        #expect(entries.allSatisfy { !$0.contains(".tmp-") }, "\(entries)")
        worker.closeInput()
        #expect(await worker.wait() == 0, "\(worker.errorOutput)")
    }

    @Test("a staging directory that is a link, or writable by others, is not used; the write still succeeds", arguments: ["link", "group-writable"])
    func unusableStagingDirectory(kind: String) throws {
        let fixture = try DomainFileFixture()
        try fixture.plant(["a": 1])
        let elsewhere = fixture.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        if kind == "link" {
            try FileManager.default.createSymbolicLink(atPath: fixture.file.stagingDirectory, withDestinationPath: elsewhere)
        } else {
            try FileManager.default.createDirectory(atPath: fixture.file.stagingDirectory, withIntermediateDirectories: false)
            #expect(chmod(fixture.file.stagingDirectory, 0o770) == 0)
        }
        #expect(fixture.file.usableStagingDirectory() == nil)

        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["b"] = 2 }

        #expect(try fixture.file.read(policy: FilePolicy())?.values == ["a": 1, "b": 2])
        // Nothing was written through the link or into the loose directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        if kind != "link" {
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.file.stagingDirectory).isEmpty)
        }
        #expect(fixture.entries.allSatisfy { !$0.contains(".tmp-") })
    }

    @Test("the staging directory is made with mode 0700 by the first write")
    func madePrivate() throws {
        let fixture = try DomainFileFixture()
        _ = try fixture.file.update(policy: FilePolicy(), recovering: [:]) { $0["a"] = 1 }
        let status = try FilePath(fixture.file.stagingDirectory).stat(followTargetSymlink: false)
        #expect(status.type == .directory)
        #expect(status.permissions == .ownerReadWriteExecute)
        #expect(fixture.file.usableStagingDirectory() == fixture.file.stagingDirectory)
    }
}
