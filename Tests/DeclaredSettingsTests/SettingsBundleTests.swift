import DeclaredSettings
import Foundation
import PropertyList
import TestSupport
import Testing

/// Apple Settings.bundle panes read as schemas: one test per specifier type, then panes.
@Suite("Settings.bundle")
struct SettingsBundleTests {
    @Test("a toggle switch declares a boolean with its default and title")
    func toggle() throws {
        let schema = try readBundle([specifier("PSToggleSwitchSpecifier", ["Key": "enabled", "Title": "Enabled", "DefaultValue": true])])
        #expect(schema["enabled"] == DeclaredKey(name: "enabled", type: .boolean, defaultValue: true, summary: "Enabled"))
        #expect(schema.format == .settingsBundle)
    }

    @Test("a toggle switch with string TrueValue and FalseValue allows only those, a boolean default meaning the switch's position")
    func toggleStrings() throws {
        let schema = try readBundle([
            specifier("PSToggleSwitchSpecifier", ["Key": "on", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": true]),
            specifier("PSToggleSwitchSpecifier", ["Key": "off", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": false]),
            specifier("PSToggleSwitchSpecifier", ["Key": "literal", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": "NO"]),
        ])
        let on = try #require(schema["on"])
        #expect(on.type == .string)
        #expect(on.choices == ["YES", "NO"])
        #expect(on.defaultValue == "YES")
        #expect(schema["off"]?.defaultValue == "NO")
        #expect(schema["literal"]?.defaultValue == "NO")
        #expect(schema.violation(setting: "MAYBE", forKey: "on")?.rule == .choices(["YES", "NO"]))
        #expect(schema.violation(setting: true, forKey: "on")?.rule == .type(.string))
    }

    @Test("a toggle switch with numeric TrueValue and FalseValue declares an integer with those two choices")
    func toggleNumbers() throws {
        let schema = try readBundle([
            specifier("PSToggleSwitchSpecifier", ["Key": "flag", "TrueValue": 1, "FalseValue": 0, "DefaultValue": true]),
            specifier("PSToggleSwitchSpecifier", ["Key": "mixed", "TrueValue": 1, "FalseValue": 0.5, "DefaultValue": false]),
        ])
        let flag = try #require(schema["flag"])
        #expect(flag.type == .integer)
        #expect(flag.choices == [1, 0])
        #expect(flag.defaultValue == 1)
        #expect(schema.violation(setting: 2, forKey: "flag")?.rule == .choices([1, 0]))
        let mixed = try #require(schema["mixed"])
        #expect(mixed.type == .real)
        #expect(mixed.defaultValue == 0.5)
    }

    @Test("a multi-value specifier declares choices from Values with titles from Titles")
    func multiValue() throws {
        let schema = try readBundle([specifier("PSMultiValueSpecifier", [
            "Key": "language", "Title": "Language", "DefaultValue": "en",
            "Values": ["en", "fr"], "Titles": ["English", "French"],
        ])])
        #expect(schema["language"] == DeclaredKey(
            name: "language", type: .string, defaultValue: "en", choices: ["en", "fr"], choiceTitles: ["English", "French"],
            summary: "Language"
        ))
    }

    @Test("a radio group declares choices like a multi-value, integers and reals together making a real")
    func radioGroup() throws {
        let schema = try readBundle([
            specifier("PSRadioGroupSpecifier", ["Key": "retries", "DefaultValue": 3, "Values": [1, 3, 5]]),
            specifier("PSRadioGroupSpecifier", ["Key": "scale", "DefaultValue": 1, "Values": [0.5, 1, 2]]),
        ])
        let retries = try #require(schema["retries"])
        #expect(retries.type == .integer)
        #expect(retries.choices == [1, 3, 5])
        #expect(retries.choiceTitles == nil)
        #expect(retries.defaultValue == 3)
        #expect(schema["scale"]?.type == .real)
        #expect(schema.violation(setting: 2.0, forKey: "scale") == nil)
    }

    @Test("a slider declares a real ranging from MinimumValue to MaximumValue")
    func slider() throws {
        let schema = try readBundle([specifier("PSSliderSpecifier", [
            "Key": "volume", "DefaultValue": 0.5, "MinimumValue": 0, "MaximumValue": 1,
        ])])
        #expect(schema["volume"] == DeclaredKey(name: "volume", type: .real, defaultValue: 0.5, minimum: 0, maximum: 1))
        #expect(schema.violation(setting: 1.5, forKey: "volume")?.rule == .maximum(1))
        #expect(schema.violation(setting: 1, forKey: "volume") == nil)
    }

    @Test("a text field declares a string")
    func textField() throws {
        let schema = try readBundle([specifier("PSTextFieldSpecifier", ["Key": "name", "Title": "Name", "DefaultValue": "World"])])
        #expect(schema["name"] == DeclaredKey(name: "name", type: .string, defaultValue: "World", summary: "Name"))
        let bare = try readBundle([specifier("PSTextFieldSpecifier", ["Key": "name"])])
        #expect(bare["name"] == DeclaredKey(name: "name", type: .string))
    }

    @Test("a title value declares a key of its default's type")
    func titleValue() throws {
        let schema = try readBundle([
            specifier("PSTitleValueSpecifier", ["Key": "version", "Title": "Version", "DefaultValue": "1.0"]),
            specifier("PSTitleValueSpecifier", ["Key": "build", "DefaultValue": 42]),
            specifier("PSTitleValueSpecifier", ["Key": "list", "DefaultValue": ["a", "b"]]),
        ])
        #expect(schema["version"] == DeclaredKey(name: "version", type: .string, defaultValue: "1.0", summary: "Version"))
        #expect(schema["build"]?.type == .integer)
        #expect(schema["list"]?.type == .array(element: .string))
    }

    @Test("a group specifier groups the keys after it until the next group")
    func groups() throws {
        let schema = try readBundle([
            specifier("PSTextFieldSpecifier", ["Key": "before"]),
            specifier("PSGroupSpecifier", ["Title": "First"]),
            specifier("PSTextFieldSpecifier", ["Key": "a"]),
            specifier("PSTextFieldSpecifier", ["Key": "b"]),
            specifier("PSGroupSpecifier", ["Title": "Second"]),
            specifier("PSTextFieldSpecifier", ["Key": "c"]),
            specifier("PSGroupSpecifier"),
            specifier("PSTextFieldSpecifier", ["Key": "d"]),
        ])
        #expect(schema["before"]?.group == nil)
        #expect(schema["a"]?.group == "First")
        #expect(schema["b"]?.group == "First")
        #expect(schema["c"]?.group == "Second")
        #expect(schema["d"]?.group == nil)
        #expect(schema.keys.count == 5)
    }

    @Test("child panes nested two deep add their keys, and every file read is listed")
    func childPanes() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [
                specifier("PSTextFieldSpecifier", ["Key": "top"]),
                specifier("PSChildPaneSpecifier", ["Title": "More", "File": "Middle"]),
            ],
            "Middle": [
                specifier("PSGroupSpecifier", ["Title": "Middle group"]),
                specifier("PSTextFieldSpecifier", ["Key": "middle"]),
                specifier("PSChildPaneSpecifier", ["File": "Bottom"]),
            ],
            "Bottom": [specifier("PSSliderSpecifier", ["Key": "bottom", "MinimumValue": 0, "MaximumValue": 10])],
            "Unreferenced": [specifier("PSTextFieldSpecifier", ["Key": "unreferenced"])],
        ])
        let schema = try PreferenceSchema(contentsOf: bundle)
        #expect(schema.sortedKeys.map(\.name) == ["bottom", "middle", "top"])
        #expect(schema["middle"]?.group == "Middle group")
        #expect(schema["bottom"]?.group == nil)
        #expect(schema.path == bundle + "/Root.plist")
        #expect(schema.files == [bundle + "/Root.plist", bundle + "/Middle.plist", bundle + "/Bottom.plist"])
    }

    @Test("a bundle may be named by its directory, with a trailing slash, or by its Root.plist")
    func bundlePaths() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle(["Root": [specifier("PSTextFieldSpecifier", ["Key": "name"])]])
        for path in [bundle, bundle + "/", bundle + "/Root.plist"] {
            let schema = try PreferenceSchema(contentsOf: path)
            #expect(schema.path == bundle + "/Root.plist", "\(path)")
            #expect(schema["name"]?.type == .string)
        }
    }

    @Test("a pane that leads back to itself through another pane is refused as a cycle")
    func twoPaneCycle() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [specifier("PSChildPaneSpecifier", ["File": "B"])],
            "B": [specifier("PSChildPaneSpecifier", ["File": "Root"])],
        ])
        let error = expectSchemaError(.cycle, path: bundle + "/Root.plist", keyPath: "") {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: bundle)
        }
        #expect(error?.reason.contains("Root -> B -> Root") == true)
    }

    @Test("a pane that names itself as its child is refused as a cycle")
    func selfReference() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [specifier("PSChildPaneSpecifier", ["File": "Child"])],
            "Child": [specifier("PSTextFieldSpecifier", ["Key": "a"]), specifier("PSChildPaneSpecifier", ["File": "Child"])],
        ])
        expectSchemaError(.cycle, path: bundle + "/Child.plist", keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: bundle)
        }
        let rootSelf = try directory.writeBundle(named: "self.bundle", ["Root": [specifier("PSChildPaneSpecifier", ["File": "Root"])]])
        expectSchemaError(.cycle, path: rootSelf + "/Root.plist", keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: rootSelf)
        }
    }

    @Test("a child pane File that is not one name in the bundle is refused")
    func childFileOutsideBundle() throws {
        let directory = try TemporaryDirectory()
        try directory.write("Secret.plist", ["PreferenceSpecifiers": []])
        for file: PropertyListValue in ["../Secret", "..", ".", "sub/Pane", "/etc/passwd", "", 3] {
            let bundle = try directory.writeBundle(["Root": [
                specifier("PSTextFieldSpecifier", ["Key": "a"]),
                specifier("PSChildPaneSpecifier", ["File": file]),
            ]])
            expectSchemaError(.malformed, path: bundle + "/Root.plist", keyPath: "PreferenceSpecifiers[1].File") {
                () throws(SchemaError) in try PreferenceSchema(contentsOf: bundle)
            }
        }
    }

    @Test("a child pane that does not exist is a missing file")
    func missingChild() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle(["Root": [specifier("PSChildPaneSpecifier", ["File": "Gone"])]])
        expectSchemaError(.missingFile, path: bundle + "/Gone.plist", keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: bundle)
        }
    }

    @Test("the same key declared in two panes is refused, naming where it was first declared")
    func duplicateAcrossPanes() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [specifier("PSTextFieldSpecifier", ["Key": "name"]), specifier("PSChildPaneSpecifier", ["File": "Child"])],
            "Child": [specifier("PSGroupSpecifier", ["Title": "G"]), specifier("PSToggleSwitchSpecifier", ["Key": "name"])],
        ])
        expectSchemaError(.duplicateKey, path: bundle + "/Child.plist", keyPath: "PreferenceSpecifiers[1].Key",
                          mentioning: "Root.plist PreferenceSpecifiers[0]") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: bundle)
        }
        let samePane = try directory.writeBundle(named: "same.bundle", ["Root": [
            specifier("PSTextFieldSpecifier", ["Key": "name"]), specifier("PSTextFieldSpecifier", ["Key": "name"]),
        ]])
        expectSchemaError(.duplicateKey, path: samePane + "/Root.plist", keyPath: "PreferenceSpecifiers[1].Key") {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: samePane)
        }
    }

    @Test("the realistic fixture bundle reads every specifier of Root.plist and its child pane")
    func fixtureBundle() throws {
        let bundle = fixturesDirectory.appendingPathComponent("Greeter.bundle").path
        let schema = try PreferenceSchema(contentsOf: bundle)
        #expect(schema.files == [bundle + "/Root.plist", bundle + "/Advanced.plist"])
        #expect(schema.sortedKeys.map(\.name) == [
            "enabled_preference", "language_preference", "name_preference", "retries_preference", "verbose_preference",
            "version_preference", "volume_preference",
        ])
        #expect(schema["name_preference"] == DeclaredKey(name: "name_preference", type: .string, defaultValue: "World", summary: "Name", group: "Greeting"))
        #expect(schema["enabled_preference"] == DeclaredKey(name: "enabled_preference", type: .boolean, defaultValue: true, summary: "Enabled", group: "Greeting"))
        #expect(schema["volume_preference"] == DeclaredKey(name: "volume_preference", type: .real, defaultValue: 0.5, minimum: 0, maximum: 1, group: "Greeting"))
        #expect(schema["language_preference"] == DeclaredKey(
            name: "language_preference", type: .string, defaultValue: "en", choices: ["en", "fr", "de"],
            choiceTitles: ["English", "French", "German"], summary: "Language", group: "Style"
        ))
        #expect(schema["version_preference"] == DeclaredKey(name: "version_preference", type: .string, defaultValue: "1.0", summary: "Version", group: "Style"))
        #expect(schema["retries_preference"] == DeclaredKey(
            name: "retries_preference", type: .integer, defaultValue: 3, choices: [1, 3, 5],
            choiceTitles: ["Once", "Three times", "Five times"], summary: "Retries", group: "Network"
        ))
        #expect(schema["verbose_preference"] == DeclaredKey(
            name: "verbose_preference", type: .string, defaultValue: "NO", choices: ["YES", "NO"], summary: "Verbose logging", group: "Network"
        ))
        #expect(schema.defaults.count == 7)
    }
}

/// Pane graphs that are not trees: shared panes, long chains.
@Suite("Settings.bundle pane graphs")
struct PaneGraphTests {
    @Test("a chain of distinct panes deeper than 32 is refused")
    func tooDeep() throws {
        let directory = try TemporaryDirectory()
        var panes: [String: [PropertyListValue]] = ["Root": [specifier("PSChildPaneSpecifier", ["File": "P1"])]]
        for level in 1...40 {
            panes["P\(level)"] = [specifier("PSChildPaneSpecifier", ["File": .string("P\(level + 1)")])]
        }
        panes["P41"] = []
        let bundle = try directory.writeBundle(panes)
        expectSchemaError(.malformed, path: bundle + "/P32.plist", keyPath: "", mentioning: "32 deep") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: bundle)
        }
    }

    @Test("a pane two others lead to is read once, its keys declared once")
    func sharedPane() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [specifier("PSChildPaneSpecifier", ["File": "A"]), specifier("PSChildPaneSpecifier", ["File": "B"])],
            "A": [specifier("PSChildPaneSpecifier", ["File": "Shared"])],
            "B": [specifier("PSChildPaneSpecifier", ["File": "Shared"])],
            "Shared": [specifier("PSTextFieldSpecifier", ["Key": "shared"])],
        ])
        let schema = try PreferenceSchema(contentsOf: bundle)
        #expect(schema.keys.count == 1)
        #expect(schema.files == ["Root", "A", "Shared", "B"].map { bundle + "/\($0).plist" })
    }

    @Test("panes that each lead twice to the next are read once each, not 2^n times")
    func exponentialSharing() throws {
        let directory = try TemporaryDirectory()
        var panes: [String: [PropertyListValue]] = [:]
        for level in 0..<30 {
            let next: PropertyListValue = .string("P\(level + 1)")
            panes[level == 0 ? "Root" : "P\(level)"] = [
                specifier("PSChildPaneSpecifier", ["File": next]), specifier("PSChildPaneSpecifier", ["File": next]),
            ]
        }
        panes["P30"] = []
        let bundle = try directory.writeBundle(panes)
        // Panes without keys: no duplicate key stops the walk early.
        let schema = try PreferenceSchema(contentsOf: bundle)
        #expect(schema.keys.isEmpty)
        #expect(schema.files.count == 31)
    }
}
