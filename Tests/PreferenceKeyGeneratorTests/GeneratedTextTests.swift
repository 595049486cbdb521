import DeclaredSettings
import Foundation
import PropertyList
import PreferenceKeyGeneration
import Testing

@Suite("Generated key declarations")
struct GeneratedTextTests {
    @Test("Every declared type becomes its Swift type, with an exact default literal")
    func everyType() throws {
        let keys: [DeclaredKey] = [
            DeclaredKey(name: "Name", type: .string, defaultValue: "Ada", summary: "The player's name."),
            DeclaredKey(name: "Volume", type: .integer, defaultValue: -3, minimum: -10, maximum: 10),
            DeclaredKey(name: "Ratio", type: .real, defaultValue: .double(0.1)),
            DeclaredKey(name: "Whole", type: .real, defaultValue: 2),
            DeclaredKey(name: "Enabled", type: .boolean, defaultValue: true),
            DeclaredKey(name: "Since", type: .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12.5))),
            DeclaredKey(name: "Token", type: .data, defaultValue: .data(Data([0x00, 0x0A, 0xFF]))),
            DeclaredKey(name: "Tags", type: .array(element: .string), defaultValue: ["a", "b"]),
            DeclaredKey(name: "Grid", type: .array(element: .array(element: .integer)), defaultValue: [[1], []]),
            DeclaredKey(name: "Mixed", type: .array(element: nil), defaultValue: ["x", 1, .bool(false)]),
            DeclaredKey(
                name: "Extra", type: .dictionary,
                defaultValue: ["b": ["n": .double(1.5)], "a": .array([.data(Data([1])), .float(0.5)])]),
            DeclaredKey(name: "Empty", type: .dictionary, defaultValue: [:]),
        ]
        let expected = #"""
            extension PreferenceKey where Value == [String: PropertyListValue] {
                /// The `Empty` preference.
                ///
                /// - Default: `[:]`
                /// - Key: `Empty` in `app.schema.plist`
                static let empty = PreferenceKey("Empty", default: [:])
            }

            extension PreferenceKey where Value == Bool {
                /// The `Enabled` preference.
                ///
                /// - Default: `true`
                /// - Key: `Enabled` in `app.schema.plist`
                static let enabled = PreferenceKey("Enabled", default: true)
            }

            extension PreferenceKey where Value == [String: PropertyListValue] {
                /// The `Extra` preference.
                ///
                /// - Default: `["a": .array([.data(Data([0x01])), .float(0.5)]), "b": .dictionary(["n": .double(1.5)])]`
                /// - Key: `Extra` in `app.schema.plist`
                static let extra = PreferenceKey("Extra", default: ["a": .array([.data(Data([0x01])), .float(0.5)]), "b": .dictionary(["n": .double(1.5)])])
            }

            extension PreferenceKey where Value == [[Int]] {
                /// The `Grid` preference.
                ///
                /// - Default: `[[1], []]`
                /// - Key: `Grid` in `app.schema.plist`
                static let grid = PreferenceKey("Grid", default: [[1], []])
            }

            extension PreferenceKey where Value == [PropertyListValue] {
                /// The `Mixed` preference.
                ///
                /// - Default: `[.string("x"), .integer(PropertyListInteger(Int64(1))), .bool(false)]`
                /// - Key: `Mixed` in `app.schema.plist`
                static let mixed = PreferenceKey("Mixed", default: [.string("x"), .integer(PropertyListInteger(Int64(1))), .bool(false)])
            }

            extension PreferenceKey where Value == String {
                /// The player's name.
                ///
                /// - Default: `"Ada"`
                /// - Key: `Name` in `app.schema.plist`
                static let name = PreferenceKey("Name", default: "Ada")
            }

            extension PreferenceKey where Value == Double {
                /// The `Ratio` preference.
                ///
                /// - Default: `0.1`
                /// - Key: `Ratio` in `app.schema.plist`
                static let ratio = PreferenceKey("Ratio", default: 0.1)
            }

            extension PreferenceKey where Value == Date {
                /// The `Since` preference.
                ///
                /// - Default: `Date(timeIntervalSinceReferenceDate: 12.5)`
                /// - Key: `Since` in `app.schema.plist`
                static let since = PreferenceKey("Since", default: Date(timeIntervalSinceReferenceDate: 12.5))
            }

            extension PreferenceKey where Value == [String] {
                /// The `Tags` preference.
                ///
                /// - Default: `["a", "b"]`
                /// - Key: `Tags` in `app.schema.plist`
                static let tags = PreferenceKey("Tags", default: ["a", "b"])
            }

            extension PreferenceKey where Value == Data {
                /// The `Token` preference.
                ///
                /// - Default: `Data([0x00, 0x0A, 0xFF])`
                /// - Key: `Token` in `app.schema.plist`
                static let token = PreferenceKey("Token", default: Data([0x00, 0x0A, 0xFF]))
            }

            extension PreferenceKey where Value == Int {
                /// The `Volume` preference.
                ///
                /// - Default: `-3`
                /// - Range: `-10` through `10`
                /// - Key: `Volume` in `app.schema.plist`
                static let volume = PreferenceKey("Volume", default: -3)
            }

            extension PreferenceKey where Value == Double {
                /// The `Whole` preference.
                ///
                /// - Default: `2.0`
                /// - Key: `Whole` in `app.schema.plist`
                static let whole = PreferenceKey("Whole", default: 2.0)
            }

            """#
        #expect(try declarations(keys) == expected)
    }

    @Test("The header marks the file generated and imports Preferences and Foundation")
    func header() throws {
        let text = try generated([DeclaredKey(name: "A", type: .string, defaultValue: "a")], domain: "com.example.app")
        #expect(text.hasPrefix("""
            // Generated by preferences-keygen from app.schema.plist.
            // Do not edit: change the schema instead, and the build regenerates this file.

            import Foundation
            import Preferences

            extension
            """))
        #expect(text.contains("/// - Key: `A` in `app.schema.plist` (domain `com.example.app`)"))
    }

    @Test("Public keys import Preferences publicly, and Foundation only when a key holds a Date or Data")
    func publicAccess() throws {
        let plain = try generated([DeclaredKey(name: "A", type: .string, defaultValue: "a")], access: .public)
        #expect(plain.contains("import Foundation\npublic import Preferences\n"))
        #expect(plain.contains("    public static let a = PreferenceKey(\"A\", default: \"a\")"))
        let dated = try generated([DeclaredKey(name: "When", type: .date)], access: .public)
        #expect(dated.contains("public import Foundation\npublic import Preferences\n"))
    }

    @Test("A key with no default holds an optional that reads nil until set")
    func optionalKeys() throws {
        let text = try declarations([
            DeclaredKey(name: "Count", type: .integer, summary: "How many."),
            DeclaredKey(name: "Names", type: .array(element: .string)),
        ])
        #expect(text == """
            extension PreferenceKey where Value == Int? {
                /// How many.
                ///
                /// - Default: none; reads `nil` until set.
                /// - Key: `Count` in `app.schema.plist`
                static let count = PreferenceKey("Count", default: nil)
            }

            extension PreferenceKey where Value == [String]? {
                /// The `Names` preference.
                ///
                /// - Default: none; reads `nil` until set.
                /// - Key: `Names` in `app.schema.plist`
                static let names = PreferenceKey("Names", default: nil)
            }

            """)
    }

    @Test("The doc comment holds the summary, the details, the choices with their titles and the range")
    func docComment() throws {
        let text = try declarations([
            DeclaredKey(
                name: "Mode", type: .string, defaultValue: "fast", choices: ["fast", "slow"], choiceTitles: ["Fast", "Slow\nand steady"],
                summary: "  How to run.\n", details: "First line.\n\nSecond paragraph."),
            DeclaredKey(name: "Floor", type: .real, minimum: .double(0.5)),
        ])
        #expect(text == """
            extension PreferenceKey where Value == Double? {
                /// The `Floor` preference.
                ///
                /// - Default: none; reads `nil` until set.
                /// - Minimum: `0.5`
                /// - Key: `Floor` in `app.schema.plist`
                static let floor = PreferenceKey("Floor", default: nil)
            }

            extension PreferenceKey where Value == String {
                /// How to run.
                ///
                /// First line.
                ///
                /// Second paragraph.
                ///
                /// - Default: `"fast"`
                /// - Choices: `"fast"` (Fast), `"slow"` (Slow and steady)
                /// - Key: `Mode` in `app.schema.plist`
                static let mode = PreferenceKey("Mode", default: "fast")
            }

            """)
    }

    @Test("The same schemas give the same text, whatever order they are given in")
    func deterministic() throws {
        let first = PreferenceSchema(keys: [DeclaredKey(name: "b", type: .string), DeclaredKey(name: "a", type: .integer)], path: "/x/one.schema.plist")
        let second = PreferenceSchema(keys: [DeclaredKey(name: "c", type: .boolean, defaultValue: false)], path: "/x/two.schema.plist")
        let sources = [KeyGenerator.Source(schema: first, displayName: "one.schema.plist"), KeyGenerator.Source(schema: second, displayName: "two.schema.plist")]
        let forward = try KeyGenerator().generate(sources)
        let backward = try KeyGenerator().generate(sources.reversed())
        #expect(forward == backward)
        #expect(forward.contains("from one.schema.plist, two.schema.plist."))
        let names = forward.split(separator: "\n").filter { $0.contains("static let") }.map { $0.split(separator: " ")[2] }
        #expect(names == ["a", "b", "c"])
    }
}
