import DeclaredSettings
import Foundation
import PropertyList
import TestSupport
import Testing

/// Native schemas that must be refused, each with its code, file and key path.
@Suite("Bad native schemas")
struct BadNativeSchemaTests {
    /// Writes `top` as a schema and requires reading it to fail with `code` at `keyPath`.
    func expectRefused(
        _ top: PropertyListValue, _ code: SchemaError.Code, at keyPath: String, mentioning words: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("com.example.bad.plist", top)
        expectSchemaError(code, path: path, keyPath: keyPath, mentioning: words, sourceLocation: sourceLocation) {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: path)
        }
    }

    /// As ``expectRefused(_:_:at:mentioning:sourceLocation:)`` for a schema whose only key is
    /// `A` = `declaration`.
    func expectRefused(
        key declaration: PropertyListValue, _ code: SchemaError.Code, at keyPath: String, mentioning words: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try expectRefused(["Keys": ["A": declaration]], code, at: keyPath, mentioning: words, sourceLocation: sourceLocation)
    }

    @Test("a file that is not a property list is refused as invalidPropertyList")
    func notAPropertyList() throws {
        let directory = try TemporaryDirectory()
        let inputs: [String] = [
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>Keys</key>",
            "{ Keys = { A = ",
            "<plist><dict><key>Keys</key><dict/></dict></plist> trailing",
            "Keys = {};}",
        ]
        for (index, text) in inputs.enumerated() {
            let path = try directory.write("bad\(index).plist", bytes: Array(text.utf8))
            expectSchemaError(.invalidPropertyList, path: path, keyPath: "", mentioning: "not a property list") {
                () throws(SchemaError) in try PreferenceSchema(contentsOf: path)
            }
        }
    }

    @Test("a missing file is missingFile and a directory is unreadable")
    func missingAndUnreadable() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("absent.plist").path
        expectSchemaError(.missingFile, path: missing, keyPath: "") { () throws(SchemaError) in try PreferenceSchema(contentsOf: missing) }
        let folder = directory.file("folder.plist").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        expectSchemaError(.unreadable, path: folder, keyPath: "") { () throws(SchemaError) in try PreferenceSchema(contentsOf: folder) }
    }

    @Test("a top value that is not a dictionary is malformed")
    func topNotDictionary() throws {
        try expectRefused(["Keys"], .malformed, at: "", mentioning: "not a dictionary")
        try expectRefused("Keys", .malformed, at: "")
    }

    @Test("the top level needs Keys as a dictionary and knows only Domain, Keys and Version")
    func topLevel() throws {
        try expectRefused(["Domain": "com.example.bad"], .malformed, at: "Keys", mentioning: "missing")
        try expectRefused(["Keys": ["A"]], .malformed, at: "Keys")
        try expectRefused(["Keys": [:], "Key": [:]], .malformed, at: "Key", mentioning: "unknown field")
        try expectRefused(["Keys": [:], "Domain": 5], .malformed, at: "Domain")
        try expectRefused(["Keys": [:], "Version": 2], .malformed, at: "Version", mentioning: "version 1")
        try expectRefused(["Keys": [:], "Version": "1"], .malformed, at: "Version")
    }

    @Test("a misspelt field of a key is refused, not ignored")
    func unknownField() throws {
        try expectRefused(key: ["Type": "integer", "Defualt": 5], .malformed, at: "Keys.A.Defualt", mentioning: "unknown field")
        try expectRefused(key: ["Type": "integer", "default": 5], .malformed, at: "Keys.A.default")
    }

    @Test("a key needs a dictionary with a Type naming a known type")
    func types() throws {
        try expectRefused(key: ["Default": 5], .malformed, at: "Keys.A.Type", mentioning: "missing")
        try expectRefused(key: ["Type": 5], .malformed, at: "Keys.A.Type")
        try expectRefused(key: ["Type": "integr"], .unknownType, at: "Keys.A.Type", mentioning: "\"integr\"")
        try expectRefused(key: ["Type": "Integer"], .unknownType, at: "Keys.A.Type")
        try expectRefused(key: "integer", .malformed, at: "Keys.A")
        try expectRefused(["Keys": ["": ["Type": "string"]]], .malformed, at: "Keys", mentioning: "empty")
    }

    @Test("ElementType belongs to arrays only and must name a known type")
    func elementType() throws {
        try expectRefused(key: ["Type": "string", "ElementType": "string"], .malformed, at: "Keys.A.ElementType")
        try expectRefused(key: ["Type": "array", "ElementType": "strings"], .unknownType, at: "Keys.A.ElementType")
        try expectRefused(key: ["Type": "array", "ElementType": ["string"]], .malformed, at: "Keys.A.ElementType")
    }

    @Test("a range belongs to numbers only, with bounds of the key's type, minimum not above maximum")
    func ranges() throws {
        try expectRefused(key: ["Type": "string", "Minimum": 0], .malformed, at: "Keys.A.Minimum", mentioning: "range")
        try expectRefused(key: ["Type": "boolean", "Maximum": 1], .malformed, at: "Keys.A.Maximum")
        try expectRefused(key: ["Type": "integer", "Minimum": 0.5], .malformed, at: "Keys.A.Minimum")
        try expectRefused(key: ["Type": "real", "Maximum": "1"], .malformed, at: "Keys.A.Maximum")
        try expectRefused(key: ["Type": "integer", "Minimum": 10, "Maximum": 1], .invalidDefault, at: "Keys.A.Minimum", mentioning: "above the maximum")
        try expectRefused(key: ["Type": "real", "Minimum": 1.5, "Maximum": 1], .invalidDefault, at: "Keys.A.Minimum")
    }

    @Test("a NaN bound is refused, since nothing compares with it")
    func notANumberBound() throws {
        try expectRefused(key: ["Type": "real", "Maximum": .double(.nan)], .malformed, at: "Keys.A.Maximum", mentioning: "NaN")
        let top: PropertyListValue = ["Keys": ["A": ["Type": "real", "Minimum": .float(.nan)]]]
        expectSchemaError(.malformed, path: "nan.plist", keyPath: "Keys.A.Minimum") { () throws(SchemaError) in
            try PreferenceSchema(nativePropertyList: top, path: "nan.plist")
        }
    }

    @Test("a default that breaks its own key's type, range or choices is refused")
    func invalidDefaults() throws {
        try expectRefused(key: ["Type": "integer", "Default": "5"], .invalidDefault, at: "Keys.A.Default", mentioning: "must be an integer")
        try expectRefused(key: ["Type": "integer", "Default": 5.0], .invalidDefault, at: "Keys.A.Default")
        try expectRefused(key: ["Type": "integer", "Minimum": 0, "Default": -1], .invalidDefault, at: "Keys.A.Default", mentioning: "at least 0")
        try expectRefused(key: ["Type": "real", "Maximum": 1, "Default": 1.5], .invalidDefault, at: "Keys.A.Default", mentioning: "at most 1")
        try expectRefused(key: ["Type": "string", "Choices": ["a", "b"], "Default": "c"], .invalidDefault, at: "Keys.A.Default", mentioning: "one of")
        try expectRefused(key: ["Type": "array", "ElementType": "string", "Default": ["a", 1]], .invalidDefault, at: "Keys.A.Default", mentioning: "(element [1])")
    }

    @Test("choices must be a non-empty array of values the type and range allow, titles one per choice")
    func badChoices() throws {
        try expectRefused(key: ["Type": "string", "Choices": []], .malformed, at: "Keys.A.Choices")
        try expectRefused(key: ["Type": "string", "Choices": "a"], .malformed, at: "Keys.A.Choices")
        try expectRefused(key: ["Type": "string", "Choices": ["a", 1]], .invalidDefault, at: "Keys.A.Choices[1]")
        try expectRefused(key: ["Type": "integer", "Maximum": 10, "Choices": [5, 50]], .invalidDefault, at: "Keys.A.Choices[1]", mentioning: "at most 10")
        try expectRefused(key: ["Type": "string", "Choices": ["a", "b"], "ChoiceTitles": ["A"]], .malformed, at: "Keys.A.ChoiceTitles")
        try expectRefused(key: ["Type": "string", "Choices": ["a"], "ChoiceTitles": [1]], .malformed, at: "Keys.A.ChoiceTitles")
        try expectRefused(key: ["Type": "string", "ChoiceTitles": ["A"]], .malformed, at: "Keys.A.ChoiceTitles")
    }

    @Test("words for people must be strings")
    func wordFields() throws {
        for field in ["Summary", "Description", "Group", "SwiftName"] {
            try expectRefused(key: ["Type": "string", .init(stringLiteral: field): 1], .malformed, at: "Keys.A.\(field)")
        }
    }

    @Test("an old name must be a non-empty string, not a declared key, and not an old name of another key")
    func badRenames() throws {
        try expectRefused(key: ["Type": "string", "RenamedFrom": 1], .malformed, at: "Keys.A.RenamedFrom")
        try expectRefused(key: ["Type": "string", "RenamedFrom": ["Old", 1]], .malformed, at: "Keys.A.RenamedFrom[1]")
        try expectRefused(key: ["Type": "string", "RenamedFrom": ["Old", ""]], .malformed, at: "Keys.A.RenamedFrom[1]")
        try expectRefused(key: ["Type": "string", "RenamedFrom": ""], .malformed, at: "Keys.A.RenamedFrom")
        try expectRefused(key: ["Type": "string", "RenamedFrom": "A"], .duplicateKey, at: "Keys.A.RenamedFrom")
        try expectRefused(
            ["Keys": ["New": ["Type": "string", "RenamedFrom": "Old"], "Old": ["Type": "string"]]],
            .duplicateKey, at: "Keys.New.RenamedFrom", mentioning: "\"Old\" is declared as a key itself"
        )
        try expectRefused(
            ["Keys": ["A": ["Type": "string", "RenamedFrom": "Old"], "B": ["Type": "string", "RenamedFrom": ["X", "Old"]]]],
            .duplicateKey, at: "Keys.B.RenamedFrom", mentioning: "also an old name of A"
        )
    }
}

/// Settings.bundle panes that must be refused.
@Suite("Bad Settings.bundles")
struct BadSettingsBundleTests {
    /// Writes a bundle whose Root pane holds `specifiers` and requires reading it to fail
    /// with `code` at `keyPath` of Root.plist.
    func expectRefused(
        _ specifiers: [PropertyListValue], _ code: SchemaError.Code, at keyPath: String, mentioning words: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle(["Root": specifiers])
        expectSchemaError(code, path: bundle + "/Root.plist", keyPath: keyPath, mentioning: words, sourceLocation: sourceLocation) {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: bundle)
        }
    }

    @Test("Root.plist must be a dictionary holding a PreferenceSpecifiers array, and the bundle must have one")
    func rootShape() throws {
        let directory = try TemporaryDirectory()
        let notDictionary = try directory.write("a.bundle/Root.plist", ["PreferenceSpecifiers"])
        expectSchemaError(.malformed, path: notDictionary, keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: notDictionary)
        }
        let missing = try directory.write("b.bundle/Root.plist", ["StringsTable": "Root"])
        expectSchemaError(.malformed, path: missing, keyPath: "PreferenceSpecifiers") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: missing)
        }
        let notArray = try directory.write("c.bundle/Root.plist", ["PreferenceSpecifiers": ["Type": "PSGroupSpecifier"]])
        expectSchemaError(.malformed, path: notArray, keyPath: "PreferenceSpecifiers") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: notArray)
        }
        let garbage = try directory.write("d.bundle/Root.plist", bytes: Array("<plist><dict>".utf8))
        expectSchemaError(.invalidPropertyList, path: garbage, keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: garbage)
        }
        let empty = directory.file("e.bundle").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        expectSchemaError(.missingFile, path: empty + "/Root.plist", keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: empty)
        }
    }

    @Test("a specifier must be a dictionary with a known Type")
    func specifierShape() throws {
        try expectRefused(["PSGroupSpecifier"], .malformed, at: "PreferenceSpecifiers[0]")
        try expectRefused([["Key": "a"]], .malformed, at: "PreferenceSpecifiers[0].Type")
        try expectRefused(
            [specifier("PSGroupSpecifier"), specifier("PSColorPickerSpecifier", ["Key": "colour"])],
            .malformed, at: "PreferenceSpecifiers[1].Type", mentioning: "unknown specifier type \"PSColorPickerSpecifier\""
        )
    }

    @Test("every specifier but groups and child panes needs a Key")
    func missingKey() throws {
        for type in ["PSToggleSwitchSpecifier", "PSTextFieldSpecifier", "PSSliderSpecifier", "PSMultiValueSpecifier", "PSTitleValueSpecifier"] {
            try expectRefused([specifier(type, ["Title": "No key"])], .malformed, at: "PreferenceSpecifiers[0].Key", mentioning: type)
        }
        try expectRefused([specifier("PSTextFieldSpecifier", ["Key": ""])], .malformed, at: "PreferenceSpecifiers[0].Key")
        try expectRefused([specifier("PSTextFieldSpecifier", ["Key": 1])], .malformed, at: "PreferenceSpecifiers[0].Key")
    }

    @Test("a slider needs numeric bounds, the minimum not above the maximum, and a default inside them")
    func sliders() throws {
        let at = "PreferenceSpecifiers[0]"
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s"])], .malformed, at: "\(at).MinimumValue")
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s", "MinimumValue": 0])], .malformed, at: "\(at).MinimumValue")
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s", "MaximumValue": 1])], .malformed, at: "\(at).MinimumValue")
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s", "MinimumValue": "0", "MaximumValue": 1])], .malformed, at: "\(at).MinimumValue")
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s", "MinimumValue": 2, "MaximumValue": 1])], .invalidDefault, at: "\(at).MinimumValue")
        try expectRefused([specifier("PSSliderSpecifier", ["Key": "s", "MinimumValue": 0, "MaximumValue": .double(.nan)])], .malformed, at: "\(at).MinimumValue")
        try expectRefused(
            [specifier("PSSliderSpecifier", ["Key": "s", "MinimumValue": 0, "MaximumValue": 1, "DefaultValue": 2])],
            .invalidDefault, at: "\(at).DefaultValue", mentioning: "at most 1"
        )
    }

    @Test("a multi-value needs values of one type, titles one per value, and a default among them")
    func multiValues() throws {
        let at = "PreferenceSpecifiers[0]"
        try expectRefused([specifier("PSMultiValueSpecifier", ["Key": "m"])], .malformed, at: "\(at).Values")
        try expectRefused([specifier("PSMultiValueSpecifier", ["Key": "m", "Values": []])], .malformed, at: "\(at).Values")
        try expectRefused([specifier("PSMultiValueSpecifier", ["Key": "m", "Values": ["a", 1]])], .malformed, at: "\(at).Values", mentioning: "one type")
        try expectRefused([specifier("PSRadioGroupSpecifier", ["Key": "m", "Values": [1, 2], "DefaultValue": "1"])], .malformed, at: "\(at).Values")
        try expectRefused([specifier("PSMultiValueSpecifier", ["Key": "m", "Values": ["a", "b"], "Titles": ["A"]])], .malformed, at: "\(at).Titles")
        try expectRefused([specifier("PSMultiValueSpecifier", ["Key": "m", "Values": ["a"], "Titles": [1]])], .malformed, at: "\(at).Titles")
        try expectRefused(
            [specifier("PSMultiValueSpecifier", ["Key": "m", "Values": ["a", "b"], "DefaultValue": "c"])],
            .invalidDefault, at: "\(at).DefaultValue", mentioning: "one of"
        )
    }

    @Test("a toggle's TrueValue and FalseValue share a type, and its default suits the switch")
    func toggles() throws {
        let at = "PreferenceSpecifiers[0]"
        try expectRefused([specifier("PSToggleSwitchSpecifier", ["Key": "t", "TrueValue": "YES", "FalseValue": 0])], .malformed, at: "\(at).TrueValue")
        try expectRefused([specifier("PSToggleSwitchSpecifier", ["Key": "t", "TrueValue": "YES"])], .malformed, at: "\(at).TrueValue")
        try expectRefused([specifier("PSToggleSwitchSpecifier", ["Key": "t", "DefaultValue": "YES"])], .invalidDefault, at: "\(at).DefaultValue")
        try expectRefused(
            [specifier("PSToggleSwitchSpecifier", ["Key": "t", "TrueValue": "YES", "FalseValue": "NO", "DefaultValue": "MAYBE"])],
            .invalidDefault, at: "\(at).DefaultValue"
        )
    }

    @Test("a title value without a default is refused, since it shows its default")
    func titleValueWithoutDefault() throws {
        try expectRefused(
            [specifier("PSGroupSpecifier"), specifier("PSTitleValueSpecifier", ["Key": "version", "Title": "Version"])],
            .malformed, at: "PreferenceSpecifiers[1].DefaultValue"
        )
    }

    @Test("a text field's default must be a string")
    func textFieldDefault() throws {
        try expectRefused([specifier("PSTextFieldSpecifier", ["Key": "n", "DefaultValue": 5])], .invalidDefault, at: "PreferenceSpecifiers[0].DefaultValue")
    }

    @Test("an error in a child pane names the child's file")
    func errorInChild() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.writeBundle([
            "Root": [specifier("PSChildPaneSpecifier", ["File": "Child"])],
            "Child": [specifier("PSTextFieldSpecifier", ["Key": "a"]), specifier("PSSliderSpecifier", ["Key": "b"])],
        ])
        expectSchemaError(.malformed, path: bundle + "/Child.plist", keyPath: "PreferenceSpecifiers[1].MinimumValue") {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: bundle)
        }
    }
}

/// Files made to hurt: huge, deep, cyclic, random. Each gives a SchemaError, never a crash.
@Suite("Hostile schema files")
struct HostileSchemaTests {
    @Test("a file larger than the size limit is tooLarge, as a native schema and as a bundle pane")
    func tooLarge() throws {
        let directory = try TemporaryDirectory()
        let huge = [UInt8](repeating: 0x20, count: 5 << 20)
        let native = try directory.write("huge.plist", bytes: huge)
        expectSchemaError(.tooLarge, path: native, keyPath: "", mentioning: "\(PreferenceSchema.sizeLimit)") {
            () throws(SchemaError) in try PreferenceSchema(contentsOf: native)
        }
        let root = try directory.write("huge.bundle/Root.plist", bytes: huge)
        expectSchemaError(.tooLarge, path: root, keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: root)
        }
        let atLimit = try directory.write("limit.plist", bytes: [UInt8](repeating: 0x20, count: PreferenceSchema.sizeLimit))
        expectSchemaError(.invalidPropertyList, path: atLimit, keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: atLimit)
        }
    }

    @Test("deeply nested arrays hit the decoder's depth limit: invalidPropertyList, not a crash")
    func deepNesting() throws {
        let directory = try TemporaryDirectory()
        let depth = 100_000
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth) + "</plist>"
        let text = String(repeating: "(", count: depth) + String(repeating: ")", count: depth)
        let inDefault = "{ Keys = { A = { Type = array; Default = " + String(repeating: "(", count: depth)
            + String(repeating: ")", count: depth) + "; }; }; }"
        for (name, content) in [("xml.plist", xml), ("text.plist", text), ("default.plist", inDefault)] {
            let path = try directory.write(name, bytes: Array(content.utf8))
            expectSchemaError(.invalidPropertyList, path: path, keyPath: "") { () throws(SchemaError) in
                try PreferenceSchema(contentsOf: path)
            }
        }
        let bundleRoot = try directory.write("deep.bundle/Root.plist", bytes: Array(xml.utf8))
        expectSchemaError(.invalidPropertyList, path: bundleRoot, keyPath: "") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: bundleRoot)
        }
    }

    @Test("a binary property list whose objects form a cycle is invalidPropertyList")
    func binaryCycle() throws {
        let directory = try TemporaryDirectory()
        // Object 0: a dictionary whose "Keys" (object 1) is object 0 itself.
        let selfKeyed = rawBinaryPropertyList([[0xD1, 1, 0], [0x54] + Array("Keys".utf8)])
        // Object 0: an array holding object 1, an array holding object 0.
        let twoCycle = rawBinaryPropertyList([[0xA1, 1], [0xA1, 0]])
        for (name, bytes) in [("self.plist", selfKeyed), ("two.plist", twoCycle)] {
            let path = try directory.write(name, bytes: bytes)
            expectSchemaError(.invalidPropertyList, path: path, keyPath: "", mentioning: "contains itself") { () throws(SchemaError) in
                try PreferenceSchema(contentsOf: path)
            }
        }
        // The builder itself makes readable files: the same dictionary without the cycle.
        let fine = rawBinaryPropertyList([[0xD1, 1, 2], [0x54] + Array("Keys".utf8), [0xD0]])
        let schema = try PreferenceSchema(native: Data(fine), path: "fine.plist")
        #expect(schema.keys.isEmpty)
    }

    @Test("random bytes, bare and behind each format's opening, always give a SchemaError")
    func randomBytes() throws {
        var generator = SplitMix64(seed: 0x5C4E_3A00)
        let prefixes: [[UInt8]] = [[], Array("bplist00".utf8), Array("<?xml version=\"1.0\"?><plist>".utf8), Array("{ Keys = ".utf8)]
        var codes: [String: Int] = [:]
        for round in 0..<400 {
            let length = Int.random(in: 0...300, using: &generator)
            let bytes = prefixes[round % prefixes.count] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                let schema = try PreferenceSchema(native: Data(bytes), path: "random-\(round)")
                Issue.record("random input \(round) parsed as a schema of \(schema.keys.count) keys")
            } catch {
                #expect(error.path == "random-\(round)")
                #expect([.invalidPropertyList, .malformed].contains(error.code), "\(error)")
                codes[error.code.description, default: 0] += 1
            }
        }
        #expect(codes["invalidPropertyList", default: 0] > 0)
    }

    @Test("random bytes as a bundle's panes always give a SchemaError naming the pane")
    func randomPanes() throws {
        let directory = try TemporaryDirectory()
        var generator = SplitMix64(seed: 42)
        for round in 0..<50 {
            let bytes = (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let bundle = directory.file("random\(round).bundle").path
            try directory.write("random\(round).bundle/Root.plist", ["PreferenceSpecifiers": [specifier("PSChildPaneSpecifier", ["File": "Child"])]])
            let child = try directory.write("random\(round).bundle/Child.plist", bytes: bytes)
            do {
                _ = try PreferenceSchema(contentsOf: bundle)
                Issue.record("random pane \(round) was read")
            } catch {
                #expect(error.path == child)
            }
        }
    }

    @Test("damaged copies of a valid binary schema never crash the reader")
    func mutations() throws {
        let fixture = try Data(contentsOf: fixturesDirectory.appendingPathComponent("com.example.greeter.plist"))
        let valid = try BinaryPropertyListEncoder().encode(PropertyListValue(decodingAnyFormat: fixture))
        var generator = SplitMix64(seed: 7)
        var refused = 0
        for round in 0..<300 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                _ = try PreferenceSchema(native: Data(bytes), path: "mutant-\(round)")
            } catch {
                #expect(error.path == "mutant-\(round)")
                refused += 1
            }
        }
        #expect(refused > 0)
    }
}
