import Foundation
@testable import Preferences
import Testing
import TestSupport

/// Domain files the store did not write: each problem gives a clear error, reads fall back
/// to the other layers, and the file's bytes stay as they were.
@Suite("Untrusted domain files through the store")
struct UntrustedFileTests {
    let domain = "com.example.untrusted"

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("a corrupt file: a typed error naming it, other layers still read, bytes untouched until we write")
    func corrupt() throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile(domain)
        try fixture.plant([:], at: path)
        let garbage = Data("bplist00 this is not a property list at all, just damage".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let store = try fixture.store(domain)
        store.register(defaults: ["k": "registered"])
        #expect(store.string(forKey: "k") == "registered")
        let problem = try #require(store.fileProblems.first)
        #expect(problem.code == .corrupt)
        #expect(problem.path == path)
        #expect(bytes(path) == garbage)
        store.set("new", forKey: "k")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: path) == ["k": "new"])
        let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.userDirectory).filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        #expect(bytes(fixture.userDirectory + "/" + aside[0]) == garbage, "the damaged bytes are kept aside")
        #expect(store.fileProblems.isEmpty)
    }

    @Test(
        "unsafe files give their error without hanging and are never changed",
        arguments: ["symlink", "group-writable", "fifo", "too large"])
    func unsafe(kind: String) throws {
        try checkUnsafe(kind)
    }

    // Apart from the other kinds: giving the file to another user takes CAP_CHOWN, so an
    // ordinary user's run skips this one alone.
    @Test(
        "a file owned by another user gives its error without hanging and is never changed",
        .enabled(if: Privileges.canChangeOwners, "needs CAP_CHOWN (root) to give the domain file to another user"))
    func otherOwner() throws {
        try checkUnsafe("other owner")
    }

    /// Plants an unsafe file of `kind` at the domain's path and checks that the store reports
    /// it, leaves it alone, keeps a change pending, and writes it once the file is gone.
    func checkUnsafe(_ kind: String) throws {
        let fixture = try StoreFixture()
        let path = fixture.userFile(domain)
        try fixture.plant(["k": "planted"], at: path)
        let target = fixture.directory.file("target.plist").path
        switch kind {
        case "symlink":
            try FileManager.default.moveItem(atPath: path, toPath: target)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        case "other owner":
            try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: path)
        case "group-writable":
            try FileManager.default.setAttributes([.posixPermissions: 0o660], ofItemAtPath: path)
        case "fifo":
            try FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o600) == 0)
        default:
            try Data(count: 2 << 20).write(to: URL(fileURLWithPath: path))
        }
        let before = kind == "fifo" ? nil : bytes(kind == "symlink" ? target : path)
        let store = try fixture.store(domain)
        #expect(store.string(forKey: "k") == nil, "an unsafe file's values are not used")
        let problem = try #require(store.fileProblems.first)
        #expect(problem.path == path)
        store.set("mine", forKey: "k")
        #expect(throws: PreferencesError.self) { try store.flush() }
        if kind != "fifo" {
            #expect(bytes(kind == "symlink" ? target : path) == before)
        }
        #expect(store.string(forKey: "k") == "mine", "the change stays pending in memory")
        // Once the hazard is gone, the kept change is written.
        try FileManager.default.removeItem(atPath: path)
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: path) == ["k": "mine"])
    }
}
