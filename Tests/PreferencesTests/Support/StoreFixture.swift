import Foundation
@testable import Preferences
import TestSupport

/// A private preferences home (``PrivatePreferencesHome``) for one test, and stores that
/// use it.
final class StoreFixture: PrivatePreferencesHome {
    var arguments: [String] = ["test"]
    /// The session runtime directory the fixture's stores and workers use for commit
    /// counters; nil: the test process's own (or none, and counters sit beside the files).
    var runtimeDirectory: String?

    override var environment: [String: String] {
        var environment = super.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory ?? ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]
        return environment
    }

    /// Gives the fixture a private runtime directory (mode 0700) for its commit counters.
    func usePrivateRuntimeDirectory() throws {
        let path = directory.file("run").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runtimeDirectory = path
    }

    var configuration: PreferenceStore.Configuration {
        PreferenceStore.Configuration(environment: environment, arguments: arguments, lockTimeout: .seconds(5))
    }

    func store(_ domain: String = "com.example.test") throws -> PreferenceStore {
        try PreferenceStore(domain: domain, configuration: configuration)
    }

    // MARK: Planting files

    var machineID: String { DomainLocations.readMachineID() ?? "no-machine-id" }

    func userFile(_ stem: String, byHost: Bool = false) -> String {
        byHost ? "\(userDirectory)/ByHost/\(stem).\(machineID).plist" : "\(userDirectory)/\(stem).plist"
    }

    func systemFile(_ stem: String, managed: Bool = false) -> String {
        managed ? "\(systemDirectory)/managed/\(stem).plist" : "\(systemDirectory)/\(stem).plist"
    }

    /// Writes a domain file directly, as another program or an administrator would.
    func plant(_ values: [String: PropertyListValue], at path: String, mode: Int = 0o600) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bytes = try BinaryPropertyListEncoder().encode(.dictionary(values))
        // In place (truncate and write), as `cat >`, many editors and scripts do: the store
        // must neither take the moment between truncation and write for a corrupt file nor
        // trust an unchanged identity within one tick of the file-system clock.
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Installs a native schema for `domain` in the fixture's schema directory, as a package
    /// would: written to a temporary name and renamed into place, mode 0644.
    @discardableResult
    func installSchema(_ keys: [String: PropertyListValue], for domain: String = "com.example.test") throws -> String {
        try FileManager.default.createDirectory(atPath: schemaDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = "\(schemaDirectory)/\(domain).plist"
        let bytes = XMLPropertyListEncoder().encode(.dictionary(["Keys": .dictionary(keys)]))
        let temporary = "\(schemaDirectory)/.\(domain).plist.new"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary)
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }
}
