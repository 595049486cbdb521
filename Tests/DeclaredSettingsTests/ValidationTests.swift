import DeclaredSettings
import Foundation
import PropertyList
import Testing

/// The rules a declared key's values must keep: type, range, choices.
@Suite("Validation")
struct ValidationTests {
    static let schema = PreferenceSchema(
        keys: [
            DeclaredKey(name: "Volume", type: .integer, minimum: 0, maximum: 100),
            DeclaredKey(name: "Speed", type: .real, minimum: 0.5, maximum: 2),
            DeclaredKey(name: "Mood", type: .string, choices: ["cheerful", "formal"]),
            DeclaredKey(name: "Ratio", type: .real, choices: [5.0, 7.5]),
            DeclaredKey(name: "Level", type: .integer, choices: [1, 3, 5]),
            DeclaredKey(name: "Names", type: .array(element: .string)),
            DeclaredKey(name: "Anything", type: .array(element: nil)),
            DeclaredKey(name: "Enabled", type: .boolean),
            DeclaredKey(name: "When", type: .date),
            DeclaredKey(name: "Blob", type: .data),
            DeclaredKey(name: "Extras", type: .dictionary),
            DeclaredKey(name: "Name", type: .string),
        ],
        path: "/schemas/com.example.test.plist"
    )

    func violation(_ value: PropertyListValue?, _ key: String) -> SchemaViolation? {
        Self.schema.violation(setting: value, forKey: key)
    }

    @Test("values of each declared type are allowed")
    func rightTypes() {
        let allowed: [(String, PropertyListValue)] = [
            ("Name", "x"), ("Volume", 5), ("Speed", 1.5), ("Speed", .float(1.5)), ("Speed", 1), ("Enabled", false),
            ("When", .date(Date(timeIntervalSinceReferenceDate: 0))), ("Blob", .data(Data())),
            ("Names", []), ("Names", ["a", "b"]), ("Anything", [1, "a", [true]]), ("Extras", [:]),
            ("Extras", ["a": [1, 2]]), ("Mood", "formal"), ("Level", 3),
        ]
        for (key, value) in allowed {
            #expect(violation(value, key) == nil, "\(key) = \(value)")
            #expect(Self.schema[key]?.admits(value) == true, "\(key) = \(value)")
        }
    }

    @Test("a value of another type breaks the type rule, and the message names key, value and type")
    func wrongType() throws {
        let wrong: [(String, PropertyListValue, DeclaredType)] = [
            ("Name", 1, .string), ("Volume", "5", .integer), ("Volume", true, .integer), ("Enabled", 1, .boolean),
            ("When", 0.0, .date), ("Blob", "bytes", .data), ("Names", "a", .array(element: .string)),
            ("Extras", ["a"], .dictionary), ("Speed", "1.5", .real), ("Anything", ["a": 1], .array(element: nil)),
        ]
        for (key, value, type) in wrong {
            let found = try #require(violation(value, key), "\(key) = \(value)")
            #expect(found.rule == .type(type))
            #expect(found.key == key)
            #expect(found.value == value)
            #expect(found.elementPath.isEmpty)
            #expect(found.schemaPath == "/schemas/com.example.test.plist")
        }
        let found = try #require(violation("loud", "Volume"))
        #expect(found.description == "Volume must be an integer, not \"loud\" (schema /schemas/com.example.test.plist)")
    }

    @Test("an array element of the wrong type is a type violation naming the element's index")
    func wrongElement() throws {
        let found = try #require(violation(["a", "b", 3, 4], "Names"))
        #expect(found.rule == .type(.string))
        #expect(found.elementPath == [2])
        #expect(found.value == ["a", "b", 3, 4])
        #expect(found.description.contains("Names must be a string"))
        #expect(found.description.contains("(element [2])"))
        let key = DeclaredKey(name: "Grid", type: .array(element: .array(element: .integer)))
        let nested = try #require(key.firstViolation(of: [[1, 2], [3, "x"]]))
        #expect(nested.elementPath == [1, 1])
        #expect(nested.rule == .type(.integer))
        let wrongInner = try #require(key.firstViolation(of: [[1], 2]))
        #expect(wrongInner.elementPath == [1])
        #expect(wrongInner.rule == .type(.array(element: .integer)))
    }

    @Test("a number below the minimum or above the maximum breaks the range, bounds included")
    func ranges() throws {
        #expect(violation(0, "Volume") == nil)
        #expect(violation(100, "Volume") == nil)
        let low = try #require(violation(-1, "Volume"))
        #expect(low.rule == .minimum(0))
        #expect(low.description == "Volume must be at least 0, not -1 (schema /schemas/com.example.test.plist)")
        let high = try #require(violation(150, "Volume"))
        #expect(high.rule == .maximum(100))
        #expect(high.description == "Volume must be at most 100, not 150 (schema /schemas/com.example.test.plist)")
        #expect(violation(0.25, "Speed")?.rule == .minimum(0.5))
        #expect(violation(.float(2.5), "Speed")?.rule == .maximum(2))
        #expect(violation(2.0, "Speed") == nil)
        #expect(violation(.float(0.5), "Speed") == nil)
    }

    @Test("a value not among the choices breaks the choices rule, and the message lists them")
    func choices() throws {
        let found = try #require(violation("grumpy", "Mood"))
        #expect(found.rule == .choices(["cheerful", "formal"]))
        #expect(found.description == "Mood must be one of \"cheerful\", \"formal\", not \"grumpy\" (schema /schemas/com.example.test.plist)")
        #expect(violation(2, "Level")?.rule == .choices([1, 3, 5]))
        #expect(violation(6.0, "Ratio")?.rule == .choices([5.0, 7.5]))
    }

    @Test("integers and reals compare by value: 5 is the choice 5.0 and an integer suits a real key")
    func integerAndReal() throws {
        #expect(violation(5, "Ratio") == nil)
        #expect(violation(.float(7.5), "Ratio") == nil)
        #expect(violation(1, "Speed") == nil)
        #expect(violation(3, "Speed")?.rule == .maximum(2))
        // A real where an integer is declared is the wrong type, whole or not.
        #expect(violation(5.0, "Volume")?.rule == .type(.integer))
        #expect(violation(3.0, "Level")?.rule == .type(.integer))
        // A real maximum admits the integer equal to it.
        let key = DeclaredKey(name: "Percent", type: .real, minimum: 0.0, maximum: 100.0)
        #expect(key.firstViolation(of: 100) == nil)
        #expect(key.firstViolation(of: 101)?.rule == .maximum(100.0))
        // Huge integers stay exact against integer bounds.
        let big = DeclaredKey(name: "Big", type: .integer, maximum: .integer(PropertyListInteger(Int64.max - 1)))
        #expect(big.firstViolation(of: .integer(PropertyListInteger(Int64.max)))?.rule == .maximum(.integer(PropertyListInteger(Int64.max - 1))))
        #expect(big.firstViolation(of: .integer(PropertyListInteger(UInt64.max))) != nil)
    }

    @Test("NaN is outside every range")
    func notANumber() {
        #expect(violation(.double(.nan), "Speed") != nil)
        #expect(violation(.float(.nan), "Speed") != nil)
        let unbounded = DeclaredKey(name: "Any", type: .real)
        #expect(unbounded.firstViolation(of: .double(.nan)) == nil)
    }

    @Test("type is checked before range and range before choices")
    func ruleOrder() {
        let key = DeclaredKey(name: "K", type: .integer, minimum: 0, maximum: 10, choices: [1, 2])
        #expect(key.firstViolation(of: "x")?.rule == .type(.integer))
        #expect(key.firstViolation(of: 11)?.rule == .maximum(10))
        #expect(key.firstViolation(of: 3)?.rule == .choices([1, 2]))
        #expect(key.firstViolation(of: 2) == nil)
    }

    @Test("removing a key (nil) is always allowed, and an undeclared key has no rules")
    func removalAndUndeclared() {
        for key in ["Volume", "Mood", "Names", "Undeclared"] {
            #expect(violation(nil, key) == nil)
        }
        #expect(violation("anything", "Undeclared") == nil)
        #expect(violation([1, 2, 3], "Undeclared") == nil)
    }

    @Test("a violation's message keeps hostile values short and on one line")
    func hostileValueInMessage() throws {
        let long = String(repeating: "x", count: 1000)
        let found = try #require(violation(.string(long + "\n"), "Mood"))
        #expect(found.description.count < 300)
        #expect(!found.description.contains("\n"))
        let control = try #require(violation("a\u{1B}[31mb", "Mood"))
        #expect(control.description.contains("\\u{1b}"))
        #expect(!control.description.contains("\u{1B}"))
        #expect(SchemaViolation.render(.data(Data([1, 2]))) == "2 bytes of data")
        #expect(SchemaViolation.render([1, 2]) == "an array of 2")
        #expect(SchemaViolation.render(["a": 1]) == "a dictionary of 1")
    }

    @Test("rules describe themselves as a sentence fragment")
    func ruleDescriptions() {
        #expect(SchemaViolation.Rule.type(.integer).description == "must be an integer")
        #expect(SchemaViolation.Rule.type(.array(element: .string)).description == "must be an array of string")
        #expect(SchemaViolation.Rule.type(.real).description == "must be a real")
        #expect(SchemaViolation.Rule.minimum(0.5).description == "must be at least 0.5")
        #expect(SchemaViolation.Rule.choices([1, "a"]).description == "must be one of 1, \"a\"")
    }
}
