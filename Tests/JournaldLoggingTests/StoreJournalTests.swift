import Foundation
import Preferences
import Testing
import TestSupport

/// The store's own entries, read back from a real journald with `journalctl -o json`.
@Suite(
    "The store's journal entries", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct StoreJournalTests {
    /// A store in a private preferences home, for a domain no other test uses.
    func makeStore(in home: PrivatePreferencesHome) throws -> (PreferenceStore, String) {
        let domain = "com.example.journal." + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return (try PreferenceStore(domain: domain, configuration: .init(environment: home.environment, arguments: ["test"])), domain)
    }

    @Test("a flush is one entry with the domain, the changed keys, the size and the path")
    func flushEntry() throws {
        let home = try PrivatePreferencesHome()
        let (store, domain) = try makeStore(in: home)
        store.set("Ada", forKey: "name")
        store.set(42, forKey: "count")
        try store.flush()
        let path = "\(home.userDirectory)/\(domain).plist"
        // The background flush may have written the first set on its own: one entry per
        // write, so the keys may be spread over two entries.
        var entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 1)
        if entries.count == 1, entries[0]["PREFERENCES_KEYS"]?.count == 1 {
            entries = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 2)
        }
        #expect((1...2).contains(entries.count))
        #expect(Set(entries.flatMap { $0["PREFERENCES_KEYS"] ?? [] }) == ["name", "count"])
        let entry = try #require(entries.last, "no entry for \(domain)")
        #expect(entries.allSatisfy { $0["MESSAGE_ID"] == ["bee61232af8949879dd51df0fa8ceb8a"] })
        #expect(entry["PRIORITY"] == ["6"])
        #expect(entry["PREFERENCES_PATH"] == [path])
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(entry["PREFERENCES_BYTES"] == [String(size ?? -1)])
        #expect(entry["MESSAGE"]?.first?.hasPrefix("wrote \(domain)") == true)
        // The write is logged where it is made: DomainWriter, since the domain type was split.
        #expect(entry["CODE_FILE"]?.first?.hasSuffix("DomainWriter.swift") == true)
        #expect(entry["CODE_LINE"] != nil && entry["CODE_FUNC"] != nil)
    }

    @Test("a corrupt domain file read from a generation gives one warning entry naming both files")
    func recoveredEntry() throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.journal.recovered" + String(UInt32.random(in: 0...UInt32.max))
        let folder = home.userDirectory
        let environment = home.environment
        // Two versions written by a child (this process never opens the domain, so only the
        // reading child logs): generation 1 holds the first, {k0 = 0}.
        let childEnvironment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        #expect(try run(workerPath, ["set-keys", domain, "k", "2"], environment: childEnvironment).status == 0)
        let path = folder + "/\(domain).plist"
        let generationPath = folder + "/.\(domain).plist.history/1.plist"
        // The damage is found on the first read, by a new process.
        try Data("bplist00 damaged beyond repair".utf8).write(to: URL(fileURLWithPath: path))
        let read = try run(workerPath, ["read", domain, "k1"], environment: childEnvironment)
        // k1 came with the damaged version: generation 1 does not hold it.
        #expect(read.output.hasPrefix("(nil)"), "\(read.output)")
        #expect(try run(workerPath, ["read", domain, "k0"], environment: childEnvironment).output.hasPrefix("0"))
        // journald files each process's datagram when it gets to it: ask until both readers'
        // entries are there (the journal holds other runs' entries of this MESSAGE_ID too).
        var entries: [[String: [String]]] = []
        let deadline = Date().addingTimeInterval(15)
        repeat {
            entries = try JournalReader.entries(where: "MESSAGE_ID", is: "f4c976933db047279d2a1790a5f4558a", count: 1)
                .filter { $0["PREFERENCES_PATH"] == [path] }
            if entries.count < 2 { Thread.sleep(forTimeInterval: 0.1) }
        } while entries.count < 2 && Date() < deadline
        let entry = try #require(entries.last, "no recovered entry for \(path)")
        // One per reading process.
        #expect(entries.count == 2)
        #expect(entry["PRIORITY"] == ["4"])
        #expect(entry["PREFERENCES_ERROR"] == ["corrupt"])
        #expect(entry["PREFERENCES_GENERATION"] == ["1"])
        #expect(entry["PREFERENCES_GENERATION_PATH"] == [generationPath])
        #expect(entry["MESSAGE"]?.first.map { $0.contains(path) && $0.contains(generationPath) } == true)
    }

    @Test("a corrupt domain file gives an error entry naming the file")
    func corruptFileEntry() throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.journal.corrupt" + String(UInt32.random(in: 0...UInt32.max))
        let folder = home.userDirectory
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = folder + "/\(domain).plist"
        try Data("bplist00 damaged beyond repair".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let store = try PreferenceStore(domain: domain, configuration: .init(environment: home.environment, arguments: ["test"]))
        #expect(store.fileProblems.first?.code == .corrupt)
        let entries = try JournalReader.entries(where: "PREFERENCES_PATH", is: path, count: 1)
        let entry = try #require(entries.last, "no entry for \(path)")
        #expect(entry["MESSAGE_ID"] == ["7ea7d374aa6a423db4198c9d363f2d95"])
        #expect(entry["PRIORITY"] == ["3"])
        #expect(entry["PREFERENCES_ERROR"] == ["corrupt"])
        #expect(entry["MESSAGE"]?.first?.contains(path) == true)
    }

    @Test("journalctl -x shows the catalog's explanation, with the entry's fields filled in")
    func catalogExplainsEntry() throws {
        let home = try PrivatePreferencesHome()
        let (store, domain) = try makeStore(in: home)
        store.set("explained", forKey: "k")
        try store.flush()
        _ = try #require(try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 1).first, "no entry for \(domain)")
        // `journalctl -x` reads the catalog database at its fixed path, so the catalog is
        // installed there in a mount namespace of the check's own: the machine's catalog and
        // database are left alone.
        let catalogs = try TemporaryDirectory()
        let script = """
            set -e
            cp /usr/lib/systemd/catalog/*.catalog "$1"/
            cp "$2" "$1"/swift-preferences.catalog
            mount --bind "$1" /usr/lib/systemd/catalog
            mount -t tmpfs tmpfs /var/lib/systemd
            journalctl --update-catalog
            exec journalctl -x --no-pager "PREFERENCES_DOMAIN=$3"
            """
        let shown = try run(
            "unshare",
            ["--mount", "--propagation", "private", "sh", "-c", script, "sh", catalogs.url.path, CatalogTests.catalog.path, domain])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.output.contains("wrote \(domain)"), "\(shown.output)")
        #expect(shown.output.contains("Subject: Preferences domain \(domain) written"), "\(shown.output)")
        #expect(shown.output.contains("Nothing needs to be done."), "\(shown.output)")
    }
}

/// Size-limit entries, and the rate limit on them.
@Suite(
    "Size-limit entries in the journal", .ownThread,
    .enabled(if: JournalReader.hasTestJournal, "needs the journald Tests/Scripts/with-journald.sh starts"))
struct SizeLimitJournalTests {
    @Test("a soft-limit warning and a refused set are logged; a storm of refusals gives at most 10 entries")
    func sizeEntries() throws {
        let home = try PrivatePreferencesHome()
        let domain = "com.example.journal.size" + String(UInt32.random(in: 0...UInt32.max))
        let store = try PreferenceStore(
            domain: domain,
            configuration: .init(environment: home.environment, arguments: ["test"], sizeLimit: 5_000, softSizeLimit: 1_000))
        store.set(Data(count: 2_000), forKey: "big")
        for round in 0..<50 {
            store.set(Data(count: 10_000), forKey: "huge\(round)")
        }
        let warnings = try JournalReader.entries(where: "MESSAGE_ID", is: "cde19ffe71da435783b857a19e271e31", count: 1)
            .filter { $0["PREFERENCES_DOMAIN"] == [domain] }
        #expect(warnings.count == 1)
        #expect(warnings.first?["PRIORITY"] == ["4"])
        #expect(warnings.first?["PREFERENCES_KEYS"] == ["big"])
        #expect(warnings.first?["PREFERENCES_LIMIT"] == ["1000"])
        let refusals = try JournalReader.entries(where: "PREFERENCES_DOMAIN", is: domain, count: 11)
            .filter { $0["MESSAGE_ID"] == ["7d199ead685a4294a32f660bd3ab101f"] }
        #expect((1...10).contains(refusals.count), "\(refusals.count) refusal entries")
        #expect(refusals.allSatisfy { $0["PRIORITY"] == ["3"] })
        #expect(store.value(forKey: "huge0") == nil)
    }
}

/// The catalog in systemd/ installs with `journalctl --update-catalog` and explains every
/// MESSAGE_ID the store logs.
@Suite("The journal catalog", .ownThread)
struct CatalogTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd/swift-preferences.catalog")

    @Test(
        "each MESSAGE_ID has an entry once the catalog is installed",
        arguments: [
            "bee61232af8949879dd51df0fa8ceb8a", "0607fe15d2164a9e8024df88f4592d02", "7ea7d374aa6a423db4198c9d363f2d95",
            "cde19ffe71da435783b857a19e271e31", "7d199ead685a4294a32f660bd3ab101f",
            "f4c976933db047279d2a1790a5f4558a", "e77f6f76d1d94e5885bb297c5d448748",
            "dbdb7c16898d44cbbf217640a423d50b", "77ee0c5ad61543808a898c4ab192d28b",
        ])
    func installs(messageID: String) throws {
        // Into a private root, so the test leaves the machine's catalog alone.
        let root = try TemporaryDirectory()
        let folder = root.file("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.catalog, to: folder.appendingPathComponent("swift-preferences.catalog"))
        let update = try run("journalctl", ["--root=\(root.url.path)", "--update-catalog"])
        #expect(update.status == 0, "\(update.output)")
        let listed = try run("journalctl", ["--root=\(root.url.path)", "--dump-catalog", messageID])
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.output.contains("-- \(messageID)"))
        #expect(listed.output.contains("Subject: Preferences"))
        #expect(listed.output.contains("Defined-By: swift-preferences"))
    }
}
