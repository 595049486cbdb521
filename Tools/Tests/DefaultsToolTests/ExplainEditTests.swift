import Foundation
import Preferences
import PropertyList
import Testing
import TestSupport

/// `defaults explain`: every layer holding a key, and the winner.
@Suite("defaults explain and edit", .ownThread)
struct ExplainEditTests {
    func plant(_ values: PropertyListValue, at path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(try BinaryPropertyListEncoder().encode(values)).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    @Test("explain lists forced, by-host, app, suite, global and system layers in order, first wins")
    func layers() throws {
        let tool = try ToolFixture()
        let u = tool.userDirectory, s = tool.systemDirectory
        try plant(["Mode": "system"], at: "\(s)/com.example.app.plist")
        try plant(["Mode": "system global"], at: "\(s)/.GlobalPreferences.plist")
        try tool.output(["write", "-g", "Mode", "global"])
        try tool.output(["write", "com.example.suite", "Mode", "suite"])
        try tool.output(["write", "com.example.app", "Mode", "app"])
        try tool.output(["-currentHost", "write", "com.example.app", "Mode", "by host"])
        let byHost = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(u)/ByHost").first { !$0.hasPrefix(".") })
        #expect(try tool.output(["explain", "--suite", "com.example.suite", "com.example.app", "Mode"]) == """
            Mode in com.example.app is "by host", from the by-host layer.
            Layers holding Mode, first wins:
            * by-host (\(u)/ByHost/\(byHost)): "by host"
              app (\(u)/com.example.app.plist): app
              suite (\(u)/com.example.suite.plist): suite
              global (\(u)/.GlobalPreferences.plist): global
              system (\(s)/com.example.app.plist): system
              system global (\(s)/.GlobalPreferences.plist): "system global"

            """)
        try plant(["Mode": "forced"], at: "\(s)/managed/com.example.app.plist")
        let json = try tool.output(["explain", "--json", "com.example.app", "Mode"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["winner"] as? String == "forced")
        #expect(object["value"] as? String == "forced")
        let layers = try #require(object["layers"] as? [[String: Any]])
        #expect(layers.map { $0["layer"] as? String } == ["forced", "by-host", "app", "global", "system", "system global"])
    }

    @Test("explain names where a forced value came from, per key, when its writer recorded it (preferences-fleet)")
    func forcedOrigin() throws {
        let tool = try ToolFixture()
        let s = tool.systemDirectory
        try tool.output(["write", "com.example.app", "Channel", "beta"])
        let files = PreferenceFiles(configuration: PreferenceStore.Configuration(environment: tool.environment))
        try files.replaceManagedDomain(
            ["Channel": "stable", "Telemetry": false], named: "com.example.app",
            origin: CommitOrigin(
                summary: "fleet policy /preferences/fleet/com.example.app at revision 7",
                keys: ["Channel": "fleet policy /preferences/hosts/kiosk-7/com.example.app at revision 9"]))
        #expect(try tool.output(["explain", "com.example.app", "Channel"]) == """
            Channel in com.example.app is stable, from the forced layer.
            Layers holding Channel, first wins:
            * forced (\(s)/managed/com.example.app.plist): stable, from fleet policy /preferences/hosts/kiosk-7/com.example.app at revision 9
              app (\(tool.userDirectory)/com.example.app.plist): beta

            """)
        let json = try tool.output(["explain", "--json", "com.example.app", "Telemetry"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let layers = try #require(object["layers"] as? [[String: Any]])
        #expect(layers.first?["origin"] as? String == "fleet policy /preferences/fleet/com.example.app at revision 7")
    }

    @Test("explain of a key no layer holds exits 1")
    func missing() throws {
        let tool = try ToolFixture()
        let result = try tool.run(["explain", "com.example.app", "Nothing"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("No layer of com.example.app's search list holds Nothing"))
    }

    @Test("edit saves what the editor changed, and only that")
    func edit() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.edit", "Greeting", "Hello"])
        try tool.output(["write", "com.example.edit", "Count", "-int", "1"])
        let script = tool.directory.file("editor.sh").path
        try "#!/bin/sh\nsed -i -e 's/Hello/Bonjour/' -e 's/<integer>1</<integer>2</' \"$1\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
        let result = try tool.run(["edit", "com.example.edit"], extraEnvironment: ["EDITOR": script, "VISUAL": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "Saved 2 changed keys to com.example.edit\n")
        #expect(try tool.onDisk("com.example.edit") == ["Greeting": "Bonjour", "Count": 2])
    }

    @Test("edit refuses invalid text, leaves the file byte-identical and keeps the text")
    func editInvalid() throws {
        let tool = try ToolFixture()
        try tool.output(["write", "com.example.edit", "Greeting", "Hello"])
        let before = FileManager.default.contents(atPath: tool.domainFile("com.example.edit"))
        let result = try tool.run(["edit", "com.example.edit"], extraEnvironment: ["EDITOR": "sed -i s/dict/dic/", "VISUAL": ""])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the edited text is not a valid XML property list"))
        #expect(result.stderr.contains("com.example.edit was not changed"))
        #expect(FileManager.default.contents(atPath: tool.domainFile("com.example.edit")) == before)
        let failing = try tool.run(["edit", "com.example.edit"], extraEnvironment: ["EDITOR": "false", "VISUAL": ""])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("exited with status 1; nothing was changed"))
        #expect(FileManager.default.contents(atPath: tool.domainFile("com.example.edit")) == before)
    }
}
