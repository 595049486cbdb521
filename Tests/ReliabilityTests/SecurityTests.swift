import Foundation
import Glibc
@testable import Preferences
import Testing
import TestSupport

/// The security list. Symbolic links, FIFOs and unsafe domain files are covered by
/// PreferencesTests (UntrustedFileTests, DomainFileTests); RELIABILITY.md maps each item.
@Suite("Security", .ownThread)
struct SecurityTests {
    @Test(
        "hostile domain names are rejected before any file-system call",
        arguments: ["../x", "..", "a/b", "/etc/passwd", "nul\u{0}byte", "", ArgumentText(String(repeating: "x", count: 201)), "new\nline"])
    func hostileNames(name: ArgumentText) throws {
        let fixture = try ReliabilityFixture()
        // A directory the store would have to create: it must never appear.
        let home = fixture.directory.file("not-yet").path
        var environment = fixture.environment
        environment["PREFERENCES_HOME"] = home
        let error = #expect(throws: PreferencesError.self) {
            try PreferenceStore(domain: name.value, configuration: .init(environment: environment, arguments: ["test"]))
        }
        #expect(error?.code == .invalidDomainName, "\(String(describing: error))")
        #expect(PreferenceStore(suiteName: name.value) == nil)
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test(
        "a preferences directory writable by group or others is refused for writes",
        arguments: ["group-writable", "world-writable"])
    func unsafeDirectory(kind: String) throws {
        try checkUnsafeDirectory(kind)
    }

    // Apart from the other kinds: giving the directory to another user takes CAP_CHOWN, so
    // an ordinary user's run skips this one alone.
    @Test(
        "a preferences directory owned by another user is refused for writes",
        .enabled(if: Privileges.canChangeOwners, "needs CAP_CHOWN (root) to give the preferences directory to another user"))
    func otherOwnerDirectory() throws {
        try checkUnsafeDirectory("other owner")
    }

    /// Makes the preferences directory unsafe in the way `kind` names and checks that a
    /// flush is refused and changes nothing, and that the kept change is written once the
    /// directory is safe again.
    func checkUnsafeDirectory(_ kind: String) throws {
        let fixture = try ReliabilityFixture()
        let store = try fixture.store("com.example.directory")
        store.set("before", forKey: "k")
        try store.flush()
        let before = FileManager.default.contents(atPath: fixture.path("com.example.directory"))
        switch kind {
        case "other owner": #expect(chown(fixture.userDirectory, 65534, 65534) == 0)
        case "group-writable": #expect(chmod(fixture.userDirectory, 0o770) == 0)
        default: #expect(chmod(fixture.userDirectory, 0o707) == 0)
        }
        store.set("after", forKey: "k")
        let error = #expect(throws: PreferencesError.self) { try store.flush() }
        #expect(error?.code == (kind == "other owner" ? .wrongOwner : .insecurePermissions), "\(String(describing: error))")
        #expect(error?.path == fixture.userDirectory)
        #expect(error?.description.contains("preferences directory") == true)
        #expect(FileManager.default.contents(atPath: fixture.path("com.example.directory")) == before)
        #expect(store.string(forKey: "k") == "after", "the change stays pending")
        // Made safe again, the kept change is written.
        #expect(chown(fixture.userDirectory, getuid(), getgid()) == 0 && chmod(fixture.userDirectory, 0o700) == 0)
        try store.flush()
        #expect(try fixture.onDisk("com.example.directory") == ["k": "after"])
    }

    @Test("a sticky world-writable preferences directory (as /tmp) is written: others cannot replace our files there")
    func stickyDirectory() throws {
        let fixture = try ReliabilityFixture()
        let store = try fixture.store("com.example.sticky")
        store.set("before", forKey: "k")
        try store.flush()
        #expect(chmod(fixture.userDirectory, 0o1777) == 0)
        store.set("after", forKey: "k")
        try store.flush()
        #expect(try fixture.onDisk("com.example.sticky") == ["k": "after"])
    }

    @Test("under umask 000, created directories are 0700 and the domain and lock files 0600")
    func umaskZero() throws {
        let fixture = try ReliabilityFixture()
        let home = fixture.directory.file("a/b/preferences").path
        var environment = fixture.environment
        environment["PREFERENCES_HOME"] = home
        let worker = try Subprocess(
            "/bin/sh", ["-c", "umask 000 && exec \"$0\" set-keys com.example.umask k 3", workerPath], environment: environment)
        #expect(worker.wait() == 0, "\(worker.errorOutput)")
        func mode(_ path: String) -> mode_t {
            var status = stat()
            return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
        }
        for directory in ["a", "a/b", "a/b/preferences"] {
            #expect(mode(fixture.directory.file(directory).path) == 0o700, "\(directory)")
        }
        #expect(mode(home + "/com.example.umask.plist") == 0o600)
        #expect(mode(home + "/.com.example.umask.plist.lock") == 0o600)
    }
}
