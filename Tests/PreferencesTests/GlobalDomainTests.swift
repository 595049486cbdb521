import Foundation
@testable import Preferences
import Testing
import TestSupport

/// However a program opens the global domain, it reads and writes `.GlobalPreferences.plist`,
/// the file every store's search list reads; no file named `NSGlobalDomain.plist` is written.
@Suite("The global domain is one file")
struct GlobalDomainTests {
    @Test("a store of NSGlobalDomain writes .GlobalPreferences.plist, and another domain's store reads it")
    func storeWritesTheGlobalFile() throws {
        let fixture = try StoreFixture()
        let global = try fixture.store(PreferenceStore.globalDomain)
        #expect(global.domain == PreferenceStore.globalDomain)
        global.set("de_DE", forKey: "AppleLocale")
        try global.flush()
        #expect(try domainValuesOnDisk(atPath: fixture.userFile(DomainLocations.globalFileStem)) == ["AppleLocale": "de_DE"])
        #expect(!FileManager.default.fileExists(atPath: fixture.userFile(PreferenceStore.globalDomain)))
        // A new store of another domain reads the global layer from that file.
        let app = try fixture.store("com.example.app")
        #expect(app.string(forKey: "AppleLocale") == "de_DE")
        #expect(app.sources(forKey: "AppleLocale").first?.layer == .global)
    }

    @Test("the global store sees the global file's layers once each, as its own")
    func globalStoreLayers() throws {
        let fixture = try StoreFixture()
        try fixture.plant(["Shared": "user"], at: fixture.userFile(DomainLocations.globalFileStem))
        try fixture.plant(["Shared": "system", "SystemOnly": 1], at: fixture.systemFile(DomainLocations.globalFileStem), mode: 0o644)
        try fixture.plant(["Forced": true], at: fixture.systemFile(DomainLocations.globalFileStem, managed: true), mode: 0o644)
        let global = try fixture.store(PreferenceStore.globalDomain)
        #expect(global.string(forKey: "Shared") == "user")
        #expect(global.integer(forKey: "SystemOnly") == 1)
        #expect(global.bool(forKey: "Forced") && global.objectIsForced(forKey: "Forced"))
        #expect(global.objectIsForced(forKey: "Forced", inDomain: PreferenceStore.globalDomain))
        // Each file is one layer, named as in every store's list: the global one and the
        // system global one, each once.
        #expect(global.sources(forKey: "Shared").map(\.layer) == [.global, .systemGlobal])
        #expect(global.dictionaryRepresentation()["Shared"] as? String == "user")
    }

    @Test("a change through the global store reaches another domain's store in the same process")
    func changeReachesOtherStores() async throws {
        let fixture = try StoreFixture()
        let app = try fixture.store("com.example.app")
        let global = try fixture.store(PreferenceStore.globalDomain)
        global.set(true, forKey: "AppleShowAllExtensions")
        #expect(app.bool(forKey: "AppleShowAllExtensions"))
        global.removeObject(forKey: "AppleShowAllExtensions")
        try global.flush()
        #expect(!app.bool(forKey: "AppleShowAllExtensions"))
    }

    @Test("suiteName NSGlobalDomain is refused, as Apple's is, and addSuite of it changes nothing")
    func suiteNameRefused() throws {
        let fixture = try StoreFixture()
        #expect(PreferenceStore(suiteName: PreferenceStore.globalDomain) == nil)
        let app = try fixture.store("com.example.app")
        let layers = app.sources(forKey: "x").count
        app.addSuite(named: PreferenceStore.globalDomain)
        #expect(app.sources(forKey: "x").count == layers)
    }

    @Test("the files of the global domain by location and by name are the same, and a stray NSGlobalDomain.plist is no domain")
    func filesByLocation() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.setValues(["k": 1], at: .named(PreferenceStore.globalDomain))
        #expect(files.filePath(of: .global()) == fixture.userFile(DomainLocations.globalFileStem))
        #expect(try files.persistentDomainValues(at: .global()) == ["k": 1])
        // What older versions wrote for the global domain's store is not listed as a domain.
        try fixture.plant(["stray": 1], at: fixture.userFile(PreferenceStore.globalDomain))
        #expect(!files.persistentDomainNames().contains(PreferenceStore.globalDomain))
    }

    @Test("the managed layer of the global domain is .GlobalPreferences.plist in the managed directory")
    func managedGlobal() throws {
        let fixture = try StoreFixture()
        let files = PreferenceFiles(configuration: fixture.configuration)
        try files.replaceManagedDomain(["Forced": 1], named: PreferenceStore.globalDomain, origin: CommitOrigin(summary: "test"))
        #expect(FileManager.default.fileExists(atPath: fixture.systemFile(DomainLocations.globalFileStem, managed: true)))
        #expect(!FileManager.default.fileExists(atPath: fixture.systemFile(PreferenceStore.globalDomain, managed: true)))
        #expect(files.managedDomainNames() == [PreferenceStore.globalDomain])
        #expect(files.managedOrigin(ofDomain: PreferenceStore.globalDomain)?.summary == "test")
        let global = try fixture.store(PreferenceStore.globalDomain)
        #expect(global.objectIsForced(forKey: "Forced"))
    }
}
