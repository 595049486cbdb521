import Foundation
@testable import Preferences
import Testing
import TestSupport

@Suite("PreferenceStore basics", .ownThread)
struct PreferenceStoreTests {
    @Test("a set is visible to reads at once and reaches the file after flush")
    func setThenRead() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("Ada", forKey: "name")
        store.set(42, forKey: "count")
        store.set(true, forKey: "enabled")
        store.set(Float(12.34), forKey: "ratio")
        store.set(0.5, forKey: "half")
        #expect(store.string(forKey: "name") == "Ada")
        #expect(store.integer(forKey: "count") == 42)
        #expect(store.bool(forKey: "enabled"))
        try store.flush()
        let disk = try #require(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")))
        #expect(disk == ["name": "Ada", "count": 42, "enabled": true, "ratio": .float(12.34), "half": 0.5])
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.userFile("com.example.test"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("Apple's coercions in the typed getters")
    func coercions() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("YES", forKey: "yes")
        store.set("true", forKey: "true")
        store.set("1", forKey: "one")
        store.set(12.34, forKey: "real")
        store.set("1.0", forKey: "oneString")
        store.set(Float(12.34), forKey: "float")
        store.set(true, forKey: "flag")
        store.set(["a", 1] as [Any], forKey: "mixed")
        store.set(["a", "b"], forKey: "strings")
        #expect(store.bool(forKey: "yes") && store.bool(forKey: "true") && store.bool(forKey: "one"))
        #expect(store.integer(forKey: "real") == 12)
        #expect(store.integer(forKey: "oneString") == 1)
        #expect(store.double(forKey: "float") == Double(Float(12.34)))
        #expect(store.string(forKey: "float") == "12.34")
        #expect(store.string(forKey: "flag") == "1")
        #expect(store.stringArray(forKey: "mixed") == nil)
        #expect(store.stringArray(forKey: "strings") == ["a", "b"])
        #expect(store.integer(forKey: "missing") == 0 && !store.bool(forKey: "missing") && store.string(forKey: "missing") == nil)
    }

    @Test("set(nil) removes the key and a registered default shows through again")
    func removal() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.register(defaults: ["greeting": "hello"])
        store.set("hi", forKey: "greeting")
        #expect(store.string(forKey: "greeting") == "hi")
        store.set(nil as Any?, forKey: "greeting")
        #expect(store.string(forKey: "greeting") == "hello")
        store.set("hi", forKey: "greeting")
        store.removeObject(forKey: "greeting")
        #expect(store.string(forKey: "greeting") == "hello")
        try store.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")) == nil, "an empty domain has no file")
    }

    @Test("registered defaults never reach the disk, and registration is cumulative")
    func registrationStaysInMemory() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.register(defaults: ["a": 1, "b": 2])
        store.register(defaults: ["b": 3, "c": 4])
        store.set("x", forKey: "written")
        try store.flush()
        #expect(store.integer(forKey: "a") == 1 && store.integer(forKey: "b") == 3 && store.integer(forKey: "c") == 4)
        #expect(try domainValuesOnDisk(atPath: fixture.userFile("com.example.test")) == ["written": "x"])
        #expect(store.volatileDomain(forName: PreferenceStore.registrationDomain).count == 3)
    }

    @Test("file URLs are stored as ~-abbreviated paths, other URLs as their full string")
    func urls() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let inHome = URL(fileURLWithPath: fixture.homeDirectory + "/Documents/report.txt")
        let web = URL(string: "https://example.com:8443/a/b?q=1&r=two#frag")!
        let elsewhere = URL(fileURLWithPath: "/var/tmp/x y.txt")
        store.set(inHome, forKey: "home")
        store.set(web, forKey: "web")
        store.set(elsewhere, forKey: "elsewhere")
        #expect(store.value(forKey: "home") == "~/Documents/report.txt")
        #expect(store.value(forKey: "web") == "https://example.com:8443/a/b?q=1&r=two#frag")
        #expect(store.value(forKey: "elsewhere") == "/var/tmp/x y.txt")
        #expect(store.url(forKey: "home")?.path == inHome.path)
        #expect(store.url(forKey: "home")?.isFileURL == true)
        #expect(store.url(forKey: "web") == web)
        #expect(store.url(forKey: "elsewhere")?.path == "/var/tmp/x y.txt")
        store.set(nil as URL?, forKey: "web")
        #expect(store.url(forKey: "web") == nil)
    }

    @Test("setting the value a key already has writes nothing")
    func unchangedSetWritesNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set(1, forKey: "k")
        try store.flush()
        let path = fixture.userFile("com.example.test")
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        store.set(1, forKey: "k")
        try store.flush()
        let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(before == after, "a rename would have given the file a new inode")
    }

    @Test("two stores of one domain in a process see each other's sets at once")
    func sharedDomainInProcess() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store("com.example.shared")
        let second = try fixture.store("com.example.shared")
        first.set("one", forKey: "k")
        #expect(second.string(forKey: "k") == "one")
    }

    @Test("synchronize returns true and picks up a file changed by someone else")
    func synchronizeRereads() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        #expect(store.string(forKey: "k") == nil)
        try fixture.plant(["k": "from outside"], at: fixture.userFile("com.example.test"))
        #expect(store.synchronize())
        #expect(store.string(forKey: "k") == "from outside")
    }

    @Test("a flush merges with keys another writer added meanwhile instead of overwriting them")
    func flushMerges() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("mine", forKey: "a")
        try store.flush()
        try fixture.plant(["a": "mine", "b": "theirs"], at: fixture.userFile("com.example.test"))
        store.set("mine too", forKey: "c")
        try store.flush()
        let disk = try domainValuesOnDisk(atPath: fixture.userFile("com.example.test"))
        #expect(disk == ["a": "mine", "b": "theirs", "c": "mine too"], "disk: \(String(describing: disk)) problems: \(store.fileProblems)")
        #expect(store.string(forKey: "b") == "theirs")
    }

    @Test("a background flush writes without any call")
    func backgroundFlush() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("soon", forKey: "k")
        let path = fixture.userFile("com.example.test")
        // The deadline bounds a failure only: the background write waits behind every other
        // suite's on the process's one flush queue, each with its fsync.
        let deadline = ContinuousClock.now + .seconds(60)
        while try domainValuesOnDisk(atPath: path)?["k"] == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try domainValuesOnDisk(atPath: path)?["k"] == "soon")
    }

    @Test("invalid domain names are rejected before any file-system call")
    func invalidNames() throws {
        let fixture = try StoreFixture()
        #expect(throws: PreferencesError.self) { try fixture.store("../escape") }
        #expect(PreferenceStore(suiteName: "has/slash") == nil)
        #expect(PreferenceStore(suiteName: PreferenceStore.globalDomain) == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.userDirectory))
    }

    @Test("registering defaults from a shipped property-list file, and clear errors for bad ones")
    func registerFromFile() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let binary = fixture.directory.file("Defaults.plist")
        try Data(try BinaryPropertyListEncoder().encode(["Interval": 30, "Greeting": "hi"])).write(to: binary)
        try store.register(contentsOf: binary)
        #expect(store.integer(forKey: "Interval") == 30)
        let xml = fixture.directory.file("Root.plist")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>Theme</key><string>dark</string><key>Volume</key><real>0.5</real></dict></plist>
            """.utf8).write(to: xml)
        try store.register(contentsOf: xml)
        #expect(store.string(forKey: "Theme") == "dark" && store.double(forKey: "Volume") == 0.5)
        let missing = #expect(throws: PreferencesError.self) { try store.register(contentsOf: fixture.directory.file("nope.plist")) }
        #expect(missing?.code == .missingFile)
        #expect(missing?.path?.hasSuffix("nope.plist") == true)
        let garbage = fixture.directory.file("garbage.plist")
        try Data("{ unterminated = ".utf8).write(to: garbage)
        let invalid = #expect(throws: PreferencesError.self) { try store.register(contentsOf: garbage) }
        #expect(invalid?.code == .invalidPropertyList)
        let array = fixture.directory.file("array.plist")
        try Data(try BinaryPropertyListEncoder().encode([1, 2])).write(to: array)
        let notDictionary = #expect(throws: PreferencesError.self) { try store.register(contentsOf: array) }
        #expect(notDictionary?.code == .notADictionary)
    }

    @Test("a store's file is read back by python3's plistlib to the same values")
    func plistlibReadsOurDomain() throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        store.set("Grüße 👋", forKey: "greeting")
        store.set(-7, forKey: "offset")
        store.set(2.5, forKey: "ratio")
        store.set(false, forKey: "off")
        store.set(Date(timeIntervalSince1970: 1_700_000_000.5), forKey: "when")
        store.set(Data([0, 255]), forKey: "blob")
        store.set(["x": [1, "two"]] as [String: Any], forKey: "nested")
        try store.flush()
        let script = """
            import plistlib, sys, datetime
            d = plistlib.load(open(sys.argv[1], "rb"))
            expected = {"greeting": "Grüße 👋", "offset": -7, "ratio": 2.5, "off": False,
                        "when": datetime.datetime(2023, 11, 14, 22, 13, 20, 500000), "blob": b"\\x00\\xff",
                        "nested": {"x": [1, "two"]}}
            ok = d == expected and type(d["off"]) is bool
            print("same" if ok else f"differs: {d!r}")
            """
        let result = try run("python3", ["-c", script, fixture.userFile("com.example.test")])
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "same", "\(result.output)")
    }
}
