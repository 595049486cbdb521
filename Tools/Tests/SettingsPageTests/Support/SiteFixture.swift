import Foundation
import Preferences
import PropertyList
import SettingsPage
import TestSupport
import Testing

/// A private preferences home (``PrivatePreferencesHome``) for one test, the settings site
/// of its user, and the files a package, an administrator or another program would put there.
final class SiteFixture: PrivatePreferencesHome {
    private var madeSite: SettingsSite?

    /// The site under test, made on first use, so that files planted before it are what its
    /// stores first read.
    var site: SettingsSite {
        if let madeSite { return madeSite }
        let site = SettingsSite(environment: environment, csrfToken: "t")
        madeSite = site
        return site
    }

    // MARK: Declarations

    /// Installs a native schema for `domain` (XML, mode 0644 in a 0755 directory), as a
    /// package would.
    @discardableResult
    func installSchema(_ keys: [String: PropertyListValue], for domain: String) throws -> String {
        try makeDirectory(schemaDirectory, mode: 0o755)
        let path = "\(schemaDirectory)/\(domain).plist"
        try write(XMLPropertyListEncoder().encode(.dictionary(["Keys": .dictionary(keys)])), to: path, mode: 0o644)
        return path
    }

    /// Installs `<domain>.bundle` in the schema directory: each of `panes` (file stem → the
    /// pane's top dictionary) as `<stem>.plist`, and each of `strings` (language → text) as
    /// `<language>.lproj/Root.strings`.
    @discardableResult
    func installBundle(for domain: String, panes: [String: PropertyListValue], strings: [String: String] = [:]) throws -> String {
        let bundle = "\(schemaDirectory)/\(domain).bundle"
        try makeDirectory(bundle, mode: 0o755)
        for (stem, pane) in panes {
            try write(XMLPropertyListEncoder().encode(pane), to: "\(bundle)/\(stem).plist", mode: 0o644)
        }
        for (language, text) in strings {
            try makeDirectory("\(bundle)/\(language).lproj", mode: 0o755)
            try write(Array(text.utf8), to: "\(bundle)/\(language).lproj/Root.strings", mode: 0o644)
        }
        return bundle
    }

    // MARK: Domain files

    /// The user's file of a domain (the global domain's is `.GlobalPreferences.plist`).
    func domainFile(_ domain: String) -> String {
        domain == PreferenceStore.globalDomain ? "\(userDirectory)/.GlobalPreferences.plist" : "\(userDirectory)/\(domain).plist"
    }

    /// Writes a domain's file directly (binary, mode 0600), as another program would.
    func plant(_ values: [String: PropertyListValue], domain: String) throws {
        try plant(values, named: (domainFile(domain) as NSString).lastPathComponent)
    }

    /// Writes `<user dir>/<name>` directly (binary, mode 0600).
    func plant(_ values: [String: PropertyListValue], named name: String) throws {
        try makeDirectory(userDirectory, mode: 0o700)
        try write(BinaryPropertyListEncoder().encode(.dictionary(values)), to: "\(userDirectory)/\(name)", mode: 0o600)
    }

    /// Forces `values` for `domain` as an administrator does: `<system>/managed/<domain>.plist`,
    /// binary, mode 0644 in 0755 directories.
    func force(_ values: [String: PropertyListValue], domain: String) throws {
        try makeDirectory(systemDirectory, mode: 0o755)
        try makeDirectory("\(systemDirectory)/managed", mode: 0o755)
        try write(BinaryPropertyListEncoder().encode(.dictionary(values)), to: "\(systemDirectory)/managed/\(domain).plist", mode: 0o644)
    }

    /// A domain's values straight from its file, nil when there is none.
    func onDisk(_ domain: String) throws -> [String: PropertyListValue]? {
        try domainValuesOnDisk(atPath: domainFile(domain))
    }

    /// A domain file's bytes, nil when there is none: equal before and after when nothing
    /// was written.
    func bytes(_ domain: String) -> Data? {
        FileManager.default.contents(atPath: domainFile(domain))
    }

    /// The domain files as another program of this user reads them.
    var files: PreferenceFiles {
        PreferenceFiles(configuration: PreferenceStore.Configuration(environment: environment, arguments: []))
    }

    /// A domain's versions, newest first: the current file, then its kept generations.
    func generations(_ domain: String) throws -> [DomainGeneration] {
        try files.generations(at: PersistentDomainLocation.named(domain))
    }

    // MARK: The site

    /// The page of `domain` (pane `pane`), read into elements.
    func page(_ domain: String, pane: String? = nil) throws -> Element {
        parseMarkup(try site.domainPage(domain: domain, pane: pane))
    }

    /// Sends `changes` to the page of `domain` as one request.
    @discardableResult
    func change(_ domain: String, pane: String? = nil, _ changes: [[String: Any]]) throws -> Reply {
        let body = try JSONSerialization.data(withJSONObject: ["changes": changes])
        return try Reply(site.applyChanges(domain: domain, pane: pane, body: body))
    }

    /// Sends a body as it is (for malformed requests).
    func post(_ domain: String, body: String) throws -> Reply {
        try Reply(site.applyChanges(domain: domain, pane: nil, body: Data(body.utf8)))
    }

    // MARK: Another process

    /// Runs the built `defaults` tool with this fixture's environment to completion.
    func defaults(_ arguments: [String]) async throws -> (status: Int32, errors: String) {
        let process = try Subprocess(defaultsPath, arguments, environment: processEnvironment, currentDirectory: directory.url.path)
        let status = await process.wait(timeout: .seconds(30))
        return (status, process.errorOutput)
    }

    // MARK: Files

    private func makeDirectory(_ path: String, mode: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    private func write(_ bytes: [UInt8], to path: String, mode: Int) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
}

/// The `defaults` executable built beside the tests.
let defaultsPath = builtProductsDirectory.appendingPathComponent("defaults").path

/// One change of a request: `{"key": K, "value": {kind: payload}}`.
func set(_ key: String, _ kind: String, _ payload: Any) -> [String: Any] {
    ["key": key, "value": [kind: payload]]
}

/// One reset of a request: `{"key": K, "reset": true}`.
func reset(_ key: String) -> [String: Any] {
    ["key": key, "reset": true]
}

/// A typed tree node as the page sends it (see `ValueTree`).
func node(_ type: String, _ value: Any) -> [String: Any] {
    ["type": type, "value": value]
}

/// An array node of `items`.
func arrayNode(_ items: [Any]) -> [String: Any] {
    ["type": "array", "items": items]
}

/// A dictionary node of `entries` (name, node), in order.
func dictionaryNode(_ entries: [(String, Any)]) -> [String: Any] {
    ["type": "dictionary", "entries": entries.map { ["name": $0.0, "node": $0.1] as [String: Any] }]
}

/// A reply to a change, undo or restore, its JSON read.
struct Reply: CustomStringConvertible {
    /// The HTTP status.
    var status: Int
    /// The JSON body as sent.
    var json: String
    /// `ok`.
    var ok: Bool?
    /// `error`, on a refusal.
    var error: String?
    /// `errors`, on a refusal: a message per key.
    var errors: [String: String]
    /// `rows`, on success: each key's row HTML ("" for a row to remove), in order.
    var rows: [(key: String, html: String)]
    /// `history`, on success.
    var history: String?

    init(_ reply: ChangeReply) throws {
        status = reply.status
        json = reply.json
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any], "\(reply.json)")
        ok = object["ok"] as? Bool
        error = object["error"] as? String
        errors = object["errors"] as? [String: String] ?? [:]
        rows = (object["rows"] as? [[String: Any]] ?? []).map { ($0["key"] as? String ?? "", $0["html"] as? String ?? "") }
        history = object["history"] as? String
    }

    /// The row HTML sent for `key`, nil when none was.
    func row(_ key: String) -> String? {
        rows.first { $0.key == key }?.html
    }

    var description: String { "\(status) \(json.prefix(600))" }
}
