import DeclaredSettings
import Foundation
import PropertyList
import TestSupport
import Testing

/// The native schema format: every field of a key declaration, read from files.
@Suite("Native schema")
struct NativeSchemaTests {
    /// Reads a schema declaring only `Key` = `declaration`.
    func declare(_ declaration: PropertyListValue) throws -> DeclaredKey {
        let directory = try TemporaryDirectory()
        let path = try directory.writeNative(keys: ["Key": declaration])
        let schema = try PreferenceSchema(contentsOf: path)
        return try #require(schema["Key"])
    }

    @Test("Private declares a secret; Settings.bundle text fields with IsSecure are private; Private must be a boolean")
    func privateKeys() throws {
        #expect(try declare(["Type": "string", "Private": true]).isPrivate)
        #expect(try !declare(["Type": "string", "Private": false]).isPrivate)
        #expect(try !declare(["Type": "string"]).isPrivate)
        let directory = try TemporaryDirectory()
        let path = try directory.writeNative(keys: ["Token": ["Type": "string", "Private": "yes"]])
        expectSchemaError(.malformed, path: path, keyPath: "Keys.Token.Private", mentioning: "boolean") { () throws(SchemaError) in
            try PreferenceSchema(contentsOf: path)
        }
        let both = try directory.writeNative("both.plist", keys: ["Token": ["Type": "string", "Private": true], "Name": ["Type": "string"]])
        #expect(try PreferenceSchema(contentsOf: both).privateKeys == ["Token"])
        let bundle = try readBundle([
            specifier("PSTextFieldSpecifier", ["Key": "Password", "IsSecure": true]),
            specifier("PSTextFieldSpecifier", ["Key": "Name"]),
        ])
        #expect(bundle.privateKeys == ["Password"])
    }

    @Test("each type name declares its type, with the spellings defaults uses accepted too")
    func everyType() throws {
        let names: [(String, DeclaredType)] = [
            ("string", .string), ("integer", .integer), ("int", .integer), ("real", .real), ("float", .real),
            ("double", .real), ("boolean", .boolean), ("bool", .boolean), ("date", .date), ("data", .data),
            ("array", .array(element: nil)), ("dictionary", .dictionary), ("dict", .dictionary),
        ]
        for (name, type) in names {
            let key = try declare(["Type": .string(name)])
            #expect(key.type == type, "\(name)")
            #expect(key.defaultValue == nil)
            #expect(key.minimum == nil && key.maximum == nil && key.choices == nil)
            #expect(key.renamedFrom.isEmpty)
        }
    }

    @Test("an array's ElementType declares the type of every element")
    func arrayElementType() throws {
        let typed = try declare(["Type": "array", "ElementType": "integer", "Default": [1, 2, 3]])
        #expect(typed.type == .array(element: .integer))
        #expect(typed.type.description == "array of integer")
        #expect(typed.defaultValue == [1, 2, 3])
        let untyped = try declare(["Type": "array", "Default": [1, "two", 3.5]])
        #expect(untyped.type == .array(element: nil))
        #expect(untyped.defaultValue == [1, "two", 3.5])
    }

    @Test("a default of each type is kept as written")
    func defaults() throws {
        let date = Date(timeIntervalSinceReferenceDate: 726_000_000)
        let cases: [(String, PropertyListValue)] = [
            ("string", "hello"), ("integer", 42), ("real", 2.5), ("real", 2), ("boolean", true),
            ("date", .date(date)), ("data", .data(Data([0, 1, 2, 255]))), ("array", ["a", 1]),
            ("dictionary", ["nested": ["deep": 1]]),
        ]
        for (type, value) in cases {
            let key = try declare(["Type": .string(type), "Default": value])
            #expect(key.defaultValue == value, "\(type)")
        }
    }

    @Test("Minimum and Maximum declare a range, integer bounds allowed on a real key")
    func ranges() throws {
        let integer = try declare(["Type": "integer", "Minimum": 0, "Maximum": 100, "Default": 50])
        #expect(integer.minimum == 0)
        #expect(integer.maximum == 100)
        let real = try declare(["Type": "real", "Minimum": 0, "Maximum": 1.5])
        #expect(real.minimum == 0)
        #expect(real.maximum == 1.5)
        let lowOnly = try declare(["Type": "integer", "Minimum": -5])
        #expect(lowOnly.minimum == -5 && lowOnly.maximum == nil)
        let equal = try declare(["Type": "integer", "Minimum": 7, "Maximum": 7, "Default": 7])
        #expect(equal.minimum == 7 && equal.maximum == 7)
    }

    @Test("Choices and ChoiceTitles declare the allowed values and their titles in order")
    func choices() throws {
        let key = try declare([
            "Type": "string", "Choices": ["low", "high"], "ChoiceTitles": ["Low", "High"], "Default": "high",
        ])
        #expect(key.choices == ["low", "high"])
        #expect(key.choiceTitles == ["Low", "High"])
        #expect(key.defaultValue == "high")
        let numbers = try declare(["Type": "real", "Choices": [1, 2.5], "Default": 1.0])
        #expect(numbers.choices == [1, 2.5])
        #expect(numbers.choiceTitles == nil)
    }

    @Test("Summary, Description, Group and SwiftName are kept as words for people and the generator")
    func words() throws {
        let key = try declare([
            "Type": "boolean", "Summary": "Whether to greet.", "Description": "Longer words.\nOn two lines.",
            "Group": "Greeting", "SwiftName": "greets",
        ])
        #expect(key.summary == "Whether to greet.")
        #expect(key.details == "Longer words.\nOn two lines.")
        #expect(key.group == "Greeting")
        #expect(key.swiftName == "greets")
        let bare = try declare(["Type": "boolean"])
        #expect(bare.summary == nil && bare.details == nil && bare.group == nil && bare.swiftName == nil)
    }

    @Test("RenamedFrom takes one old name as a string or several as an array")
    func renamedFrom() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.writeNative(keys: [
            "Volume": ["Type": "integer", "RenamedFrom": ["SoundLevel", "Loudness"]],
            "Greeting": ["Type": "string", "RenamedFrom": "Salutation"],
        ])
        let schema = try PreferenceSchema(contentsOf: path)
        #expect(schema["Volume"]?.renamedFrom == ["SoundLevel", "Loudness"])
        #expect(schema["Greeting"]?.renamedFrom == ["Salutation"])
        #expect(schema.renames.map(\.old) == ["Loudness", "Salutation", "SoundLevel"])
        #expect(schema.renames.map(\.new) == ["Volume", "Greeting", "Volume"])
    }

    @Test("Domain and Version 1 are read; the schema records its path, format and file")
    func topLevelFields() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.writeNative(keys: ["A": ["Type": "string"]], extra: ["Domain": "com.example.test", "Version": 1])
        let schema = try PreferenceSchema(contentsOf: path)
        #expect(schema.domain == "com.example.test")
        #expect(schema.path == path)
        #expect(schema.format == .native)
        #expect(schema.files == [path])
        let anonymous = try PreferenceSchema(contentsOf: directory.writeNative("other.plist", keys: [:]))
        #expect(anonymous.domain == nil)
        #expect(anonymous.keys.isEmpty)
    }

    @Test("the fixture schema declares every field it spells, and its defaults are the registration layer")
    func fixture() throws {
        let path = fixturesDirectory.appendingPathComponent("com.example.greeter.plist").path
        let schema = try PreferenceSchema(contentsOf: path)
        #expect(schema.domain == "com.example.greeter")
        #expect(schema.sortedKeys.map(\.name) == [
            "Anything", "Enabled", "Extras", "Greeting", "LastRun", "Mood", "Names", "Speed", "Token", "Volume",
        ])
        let volume = try #require(schema["Volume"])
        #expect(volume == DeclaredKey(
            name: "Volume", type: .integer, defaultValue: 50, minimum: 0, maximum: 100,
            summary: "How loud the greeting is.", details: "0 is silent; 100 is as loud as the speaker goes.",
            renamedFrom: ["SoundLevel", "Loudness"], group: "Sound", swiftName: "volume"
        ))
        #expect(schema["Speed"]?.minimum == 0.5 && schema["Speed"]?.maximum == 2)
        #expect(schema["Names"]?.type == .array(element: .string))
        #expect(schema["LastRun"]?.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 725_857_445)))
        #expect(schema["Token"]?.defaultValue == .data(Data([1, 2, 3])))
        #expect(schema["Mood"]?.choiceTitles == ["Cheerful", "Formal"])
        #expect(schema.defaults.count == 10)
        #expect(schema.defaults["Enabled"] == true)
    }

    @Test("XML, binary and old-style text encodings of one schema parse equal")
    func encodings() throws {
        let directory = try TemporaryDirectory()
        let fixture = try Data(contentsOf: fixturesDirectory.appendingPathComponent("com.example.greeter.plist"))
        let value = try PropertyListValue(decodingAnyFormat: fixture)
        let xmlPath = try directory.write("xml.plist", bytes: XMLPropertyListEncoder().encode(value))
        let binaryBytes = try BinaryPropertyListEncoder().encode(value)
        #expect(binaryBytes.starts(with: Array("bplist".utf8)))
        let binaryPath = try directory.write("binary.plist", bytes: binaryBytes)
        let xml = try PreferenceSchema(contentsOf: xmlPath)
        let binary = try PreferenceSchema(contentsOf: binaryPath)
        #expect(xml.keys == binary.keys)
        #expect(xml.domain == binary.domain)
        let original = try PreferenceSchema(native: fixture, path: "fixture")
        #expect(original.keys == xml.keys)

        let text = """
            { Keys = { Name = { Type = string; Default = "Ada"; Summary = "Who is greeted."; }; }; }
            """
        let fromText = try PreferenceSchema(native: Data(text.utf8), path: "text.plist")
        #expect(fromText["Name"] == DeclaredKey(name: "Name", type: .string, defaultValue: "Ada", summary: "Who is greeted."))
    }

    @Test("a schema built in code keeps the last declaration of a name and answers lookups")
    func inCode() {
        let schema = PreferenceSchema(
            keys: [DeclaredKey(name: "A", type: .string), DeclaredKey(name: "A", type: .integer), DeclaredKey(name: "B", type: .data)],
            path: "in-code"
        )
        #expect(schema["A"]?.type == .integer)
        #expect(schema.files == ["in-code"])
        #expect(schema.format == .native)
        #expect(schema.sortedKeys.map(\.name) == ["A", "B"])
        #expect(schema["C"] == nil)
    }
}
