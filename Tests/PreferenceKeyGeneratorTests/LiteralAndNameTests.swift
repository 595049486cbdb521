import DeclaredSettings
import Foundation
import PropertyList
import PreferenceKeyGeneration
import Testing

@Suite("Swift literals and names")
struct LiteralAndNameTests {
    @Test("String literals escape quotes, backslashes, line breaks and control characters, and keep other text as it is")
    func stringEscaping() {
        #expect(SwiftLiteral.string(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
        #expect(SwiftLiteral.string("a\nb\r\tc\0") == #""a\nb\r\tc\0""#)
        #expect(SwiftLiteral.string("\u{1}\u{1B}\u{7F}\u{85}\u{2028}") == #""\u{1}\u{1B}\u{7F}\u{85}\u{2028}""#)
        #expect(SwiftLiteral.string("Grüße, 世界 👋🏽 e\u{301}") == "\"Grüße, 世界 👋🏽 e\u{301}\"")
        #expect(SwiftLiteral.string(#"\(interpolation) #"#) == #""\\(interpolation) #""#)
    }

    @Test("A string default with every kind of character is declared as an exact literal")
    func escapedDefault() throws {
        let text = try declarations([DeclaredKey(name: "Quote", type: .string, defaultValue: "\"\\\n\u{7}é")])
        #expect(text.contains(#"static let quote = PreferenceKey("Quote", default: "\"\\\n\u{7}é")"#))
    }

    @Test("Reals are written with round-trip precision, infinities and NaN by name")
    func reals() throws {
        for value in [0.1, 1e300, -0.0, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 1.0 / 3, 123456789.125, -2.5e-10] {
            let literal = SwiftLiteral.double(value)
            #expect(Double(literal)?.bitPattern == value.bitPattern, "\(literal)")
        }
        #expect(SwiftLiteral.double(.infinity) == "Double.infinity")
        #expect(SwiftLiteral.double(-.infinity) == "-Double.infinity")
        #expect(SwiftLiteral.double(.nan) == "Double.nan")
        // A 32-bit real widens exactly: the literal is the Float's own value.
        #expect(try SwiftLiteral.literal(.float(0.1), as: .real) == "0.10000000149011612")
    }

    @Test("Integers outside Int have no literal, and property-list integers past Int64 are built from UInt64")
    func largeIntegers() {
        #expect(throws: SwiftLiteral.Unrepresentable.self) {
            try SwiftLiteral.literal(.integer(PropertyListInteger(UInt64.max)), as: .integer)
        }
        #expect(SwiftLiteral.propertyListValue(.integer(PropertyListInteger(UInt64.max)))
            == ".integer(PropertyListInteger(UInt64(18446744073709551615)))")
        #expect(SwiftLiteral.propertyListValue(.integer(PropertyListInteger(Int64.min)))
            == ".integer(PropertyListInteger(Int64(-9223372036854775808)))")
    }

    @Test("Names are derived in lowerCamelCase from the key's words")
    func derivedNames() {
        let cases: [(String, String)] = [
            ("app_player_name", "appPlayerName"), ("Volume", "volume"), ("com.example.Greeting", "comExampleGreeting"),
            ("URLScheme", "urlScheme"), ("ID", "id"), ("3DMode", "_3DMode"), ("max-size", "maxSize"),
            ("already camelCase", "alreadyCamelCase"), ("__private", "private"), ("Größe", "größe"), ("lastStoppedAt", "lastStoppedAt"),
        ]
        for (key, name) in cases {
            #expect(SwiftName.derived(from: key) == name, "\(key)")
        }
        #expect(SwiftName.derived(from: "--") == nil)
    }

    @Test("Keywords are back-quoted, so a key named default or class still compiles")
    func keywords() throws {
        let text = try declarations([
            DeclaredKey(name: "default", type: .boolean, defaultValue: false),
            DeclaredKey(name: "Class", type: .string, defaultValue: "a"),
            DeclaredKey(name: "x", type: .string, defaultValue: "b", swiftName: "in"),
        ])
        #expect(text.contains("static let `class` = PreferenceKey(\"Class\""))
        #expect(text.contains("static let `default` = PreferenceKey(\"default\""))
        #expect(text.contains("static let `in` = PreferenceKey(\"x\""))
    }

    @Test("A SwiftName is used as it is, and checked to be an identifier")
    func givenNames() throws {
        #expect(try declarations([DeclaredKey(name: "NSWeird.Key", type: .integer, defaultValue: 1, swiftName: "weird")])
            .contains("static let weird = PreferenceKey(\"NSWeird.Key\", default: 1)"))
        for bad in ["1st", "two words", "a-b", "_", "$x", ""] {
            let error = #expect(throws: SchemaError.self) {
                try generated([DeclaredKey(name: "Key", type: .integer, swiftName: bad)], path: "/s/bad.schema.plist")
            }
            #expect(error?.path == "/s/bad.schema.plist")
            #expect(error?.keyPath == "Keys.Key.SwiftName")
            #expect(error?.description.contains("is not a Swift identifier") == true, "\(bad)")
        }
    }

    @Test("A key name with no letter or digit needs a SwiftName")
    func underivableName() {
        let error = #expect(throws: SchemaError.self) {
            try generated([DeclaredKey(name: "--", type: .integer)], path: "/s/dash.schema.plist")
        }
        #expect(error?.description == "schema /s/dash.schema.plist, at Keys.--: no Swift name can be derived from \"--\" (it has no letters or digits); give it a SwiftName (malformed)")
    }

    @Test("Two keys with the same Swift name and type are an error naming both; different types may share a name")
    func collisions() throws {
        let error = #expect(throws: SchemaError.self) {
            try generated([
                DeclaredKey(name: "app_name", type: .string, defaultValue: "a"),
                DeclaredKey(name: "AppName", type: .string, defaultValue: "b"),
            ], path: "/s/app.schema.plist")
        }
        #expect(error?.code == .duplicateKey)
        #expect(error?.description == """
            schema /s/app.schema.plist, at Keys.app_name: "app_name" and "AppName" (/s/app.schema.plist, at Keys.AppName) \
            would both be PreferenceKey<String>.appName; give one a SwiftName (duplicateKey)
            """)
        // A key with a default and one without hold different types (String, String?).
        let text = try declarations([
            DeclaredKey(name: "app_name", type: .string, defaultValue: "a"),
            DeclaredKey(name: "AppName", type: .string),
        ])
        #expect(text.contains("where Value == String {") && text.contains("where Value == String? {"))
    }

    @Test("The same key in two schemas is a collision naming both files")
    func collisionAcrossSchemas() {
        let one = PreferenceSchema(keys: [DeclaredKey(name: "Volume", type: .integer, defaultValue: 1)], path: "/a/one.schema.plist")
        let two = PreferenceSchema(keys: [DeclaredKey(name: "Volume", type: .integer, defaultValue: 2)], path: "/b/two.schema.plist")
        let error = #expect(throws: SchemaError.self) {
            try KeyGenerator().generate([.init(schema: one, displayName: "one"), .init(schema: two, displayName: "two")])
        }
        #expect(error?.description.contains("/a/one.schema.plist") == true)
        #expect(error?.description.contains("/b/two.schema.plist") == true)
        #expect(error?.description.contains("PreferenceKey<Int>.volume") == true)
    }
}
