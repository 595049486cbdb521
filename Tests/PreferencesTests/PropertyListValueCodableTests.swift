import Foundation
import Preferences
import Testing

private struct Window: Codable, Equatable {
    var width: Int
    var height: Int
}

private enum Theme: String, Codable {
    case light, dark
}

private enum Priority: Int, Codable {
    case low = 1, high = 9
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(Int)
    case none
}

private struct Settings: Codable, Equatable {
    var name: String
    var volume: Double
    var level: Float
    var count: Int
    var enabled: Bool
    var tags: [String]
    var limits: [String: Int]
    var window: Window
    var windows: [Window]
    var nickname: String?
    var theme: Theme
    var priority: Priority
    var shape: Shape
    var updated: Date
    var blob: Data
    var link: URL
    var big: UInt64
    var small: Int8
}

private let sample = Settings(
    name: "editor", volume: 0.75, level: 12.34, count: -3, enabled: true, tags: ["a", "b"],
    limits: ["files": 10], window: Window(width: 800, height: 600), windows: [Window(width: 1, height: 2)],
    nickname: nil, theme: .dark, priority: .high, shape: .circle(radius: 2.5),
    updated: Date(timeIntervalSinceReferenceDate: 1000.5), blob: Data([0, 1, 2]),
    link: URL(string: "https://example.com/p?q=1#f")!, big: UInt64.max, small: -8)

/// A class hierarchy that encodes its superclass through `superEncoder()`.
private class Animal: Codable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
}

private final class Dog: Animal {
    var name: String
    private enum CodingKeys: String, CodingKey { case name }

    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

/// A type written by hand with nested containers in both directions.
private struct Matrix: Codable, Equatable {
    var label: String
    var rows: [[Int]]
    var origin: Window

    private enum Keys: String, CodingKey { case meta, rows, origin }
    private enum MetaKeys: String, CodingKey { case label }
    private enum OriginKeys: String, CodingKey { case w, h }

    init(label: String, rows: [[Int]], origin: Window) {
        self.label = label
        self.rows = rows
        self.origin = origin
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        label = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta).decode(String.self, forKey: .label)
        var rowsContainer = try container.nestedUnkeyedContainer(forKey: .rows)
        var rows: [[Int]] = []
        while !rowsContainer.isAtEnd {
            var row = try rowsContainer.nestedUnkeyedContainer()
            var values: [Int] = []
            while !row.isAtEnd { values.append(try row.decode(Int.self)) }
            rows.append(values)
        }
        self.rows = rows
        var originArray = try container.nestedUnkeyedContainer(forKey: .origin)
        let origin = try originArray.nestedContainer(keyedBy: OriginKeys.self)
        self.origin = Window(width: try origin.decode(Int.self, forKey: .w), height: try origin.decode(Int.self, forKey: .h))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        try meta.encode(label, forKey: .label)
        var rowsContainer = container.nestedUnkeyedContainer(forKey: .rows)
        for row in rows {
            var rowContainer = rowsContainer.nestedUnkeyedContainer()
            for value in row { try rowContainer.encode(value) }
        }
        var originArray = container.nestedUnkeyedContainer(forKey: .origin)
        var origin = originArray.nestedContainer(keyedBy: OriginKeys.self)
        try origin.encode(self.origin.width, forKey: .w)
        try origin.encode(self.origin.height, forKey: .h)
    }
}

/// Reads an optional through `decodeNil(forKey:)` rather than `decodeIfPresent`.
private struct ExplicitNil: Codable, Equatable {
    var value: Int?
    private enum Keys: String, CodingKey { case value }

    init(value: Int?) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        value = try container.decodeNil(forKey: .value) ? nil : container.decode(Int.self, forKey: .value)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        if let value { try container.encode(value, forKey: .value) } else { try container.encodeNil(forKey: .value) }
    }
}

/// Encodes nothing at all.
private struct Silent: Codable, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

/// Echoes the coder's user info, to show it is passed through.
private struct UserInfoEcho: Codable, Equatable {
    static let key = CodingUserInfoKey(rawValue: "echo")!
    var seen: String

    init(seen: String) { self.seen = seen }

    init(from decoder: any Decoder) throws {
        seen = decoder.userInfo[Self.key] as? String ?? "none"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.userInfo[Self.key] as? String ?? "none")
    }
}

@Suite("Codable values as native property lists")
struct PropertyListValueCodableTests {
    let encoder = PropertyListValueEncoder()
    let decoder = PropertyListValueDecoder()

    @Test("a struct encodes to a native dictionary with native leaves")
    func structEncodesNatively() throws {
        let encoded = try encoder.encode(sample)
        let expected: PropertyListValue = [
            "name": "editor", "volume": .double(0.75), "level": .float(12.34), "count": -3, "enabled": true,
            "tags": ["a", "b"], "limits": ["files": 10], "window": ["width": 800, "height": 600],
            "windows": [["width": 1, "height": 2]], "theme": "dark", "priority": 9,
            "shape": ["circle": ["radius": .double(2.5)]],
            "updated": .date(Date(timeIntervalSinceReferenceDate: 1000.5)), "blob": .data(Data([0, 1, 2])),
            "link": "https://example.com/p?q=1#f", "big": .integer(PropertyListInteger(UInt64.max)), "small": -8,
        ]
        #expect(encoded == expected)
        #expect(encoded["nickname"] == nil)
    }

    @Test("a struct round-trips, with an optional both nil and present")
    func structRoundTrip() throws {
        #expect(try decoder.decode(Settings.self, from: encoder.encode(sample)) == sample)
        var named = sample
        named.nickname = "ed"
        named.shape = .square(4)
        let encoded = try encoder.encode(named)
        #expect(encoded["nickname"] == "ed")
        #expect(try decoder.decode(Settings.self, from: encoded) == named)
        named.shape = .none
        #expect(try decoder.decode(Settings.self, from: encoder.encode(named)) == named)
    }

    @Test("top-level single values encode as themselves")
    func topLevelValues() throws {
        #expect(try encoder.encode(42) == .integer(42))
        #expect(try encoder.encode(Theme.light) == .string("light"))
        #expect(try encoder.encode(Priority.low) == .integer(1))
        #expect(try encoder.encode("text") == .string("text"))
        #expect(try encoder.encode(true) == .bool(true))
        #expect(try encoder.encode(Float(1.5)) == .float(1.5))
        #expect(try encoder.encode(Optional(7)) == .integer(7))
        #expect(try encoder.encode([1, 2]) == .array([1, 2]))
        #expect(try decoder.decode(Int.self, from: .integer(42)) == 42)
        #expect(try decoder.decode(Theme.self, from: "dark") == .dark)
        #expect(try decoder.decode(Priority.self, from: 9) == .high)
        #expect(try decoder.decode(Int?.self, from: 3) == 3)
    }

    @Test("dates, data and URLs use the native property-list types")
    func nativeTypes() throws {
        let date = Date(timeIntervalSinceReferenceDate: -5.25)
        let url = try #require(URL(string: "https://example.com/a%20b?x=1#y"))
        #expect(try encoder.encode(date) == .date(date))
        #expect(try encoder.encode(Data([9, 8])) == .data(Data([9, 8])))
        #expect(try encoder.encode(url) == .string("https://example.com/a%20b?x=1#y"))
        #expect(try encoder.encode([date]) == .array([.date(date)]))
        #expect(try decoder.decode(Date.self, from: .date(date)) == date)
        #expect(try decoder.decode(Data.self, from: .data(Data([9, 8]))) == Data([9, 8]))
        #expect(try decoder.decode(URL.self, from: .string(url.absoluteString)) == url)
        #expect(try decoder.decode([URL].self, from: [.string(url.absoluteString)]) == [url])
        #expect(try decoder.decode(Date?.self, from: .date(date)) == date)
    }

    @Test("collections round-trip: arrays, dictionaries, nesting, and integer-keyed dictionaries")
    func collections() throws {
        let nested: [String: [[Int]]] = ["a": [[1], [2, 3]], "b": []]
        #expect(try encoder.encode(nested) == ["a": [[1], [2, 3]], "b": []])
        #expect(try decoder.decode([String: [[Int]]].self, from: encoder.encode(nested)) == nested)
        let numbered = [1: "one", 2: "two"]
        #expect(try encoder.encode(numbered) == ["1": "one", "2": "two"])
        #expect(try decoder.decode([Int: String].self, from: encoder.encode(numbered)) == numbered)
        let windows = [Window(width: 1, height: 2), Window(width: 3, height: 4)]
        #expect(try decoder.decode([Window].self, from: encoder.encode(windows)) == windows)
        #expect(try encoder.encode([String]()) == .array([]))
        #expect(try encoder.encode([String: Int]()) == .dictionary([:]))
    }

    @Test("a nil optional in a dictionary is omitted and reads back as nil")
    func nilOmitted() throws {
        let values: [String: Int?] = ["a": 1, "b": nil]
        #expect(try encoder.encode(values) == ["a": 1])
        #expect(try encoder.encode(ExplicitNil(value: nil)) == .dictionary([:]))
        #expect(try encoder.encode(ExplicitNil(value: 3)) == ["value": 3])
        #expect(try decoder.decode(ExplicitNil.self, from: [:]) == ExplicitNil(value: nil))
        #expect(try decoder.decode(ExplicitNil.self, from: ["value": 3]) == ExplicitNil(value: 3))
    }

    @Test("a nil in an array or at the top level cannot be encoded")
    func nilNotEncodable() throws {
        let inArray = #expect(throws: EncodingError.self) { try encoder.encode([1, nil] as [Int?]) }
        guard case .invalidValue(_, let context) = inArray else {
            Issue.record("expected invalidValue, got \(String(describing: inArray))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(throws: EncodingError.self) { try encoder.encode(Int?.none) }
    }

    @Test("superEncoder and superDecoder nest the superclass under \"super\"")
    func superclass() throws {
        let encoded = try encoder.encode(Dog(name: "Rex", legs: 4))
        #expect(encoded == ["name": "Rex", "super": ["legs": 4]])
        let decoded = try decoder.decode(Dog.self, from: encoded)
        #expect(decoded.name == "Rex")
        #expect(decoded.legs == 4)
    }

    @Test("hand-written nested keyed and unkeyed containers round-trip")
    func nestedContainers() throws {
        let matrix = Matrix(label: "m", rows: [[1, 2], [], [3]], origin: Window(width: 5, height: 6))
        let encoded = try encoder.encode(matrix)
        #expect(encoded == ["meta": ["label": "m"], "rows": [[1, 2], [], [3]], "origin": [["w": 5, "h": 6]]])
        #expect(try decoder.decode(Matrix.self, from: encoded) == matrix)
    }

    @Test("a value that encodes nothing is an empty dictionary when nested and an error at the top")
    func encodesNothing() throws {
        #expect(try encoder.encode(["quiet": Silent()]) == ["quiet": [:]])
        #expect(throws: EncodingError.self) { try encoder.encode(Silent()) }
    }

    @Test("integers outside the property-list range cannot be encoded")
    func integerRange() throws {
        #expect(try encoder.encode(Int128(-1)) == .integer(-1))
        #expect(throws: EncodingError.self) { try encoder.encode(UInt128(UInt64.max) + 1) }
        #expect(throws: EncodingError.self) { try encoder.encode(["big": Int128(Int64.min) - 1]) }
        #expect(try decoder.decode(UInt128.self, from: .integer(PropertyListInteger(UInt64.max))) == UInt128(UInt64.max))
    }

    @Test("user info reaches the values being coded")
    func userInfo() throws {
        var encoder = PropertyListValueEncoder()
        encoder.userInfo[UserInfoEcho.key] = "encoding"
        #expect(try encoder.encode(UserInfoEcho(seen: "")) == "encoding")
        var decoder = PropertyListValueDecoder()
        decoder.userInfo[UserInfoEcho.key] = "decoding"
        #expect(try decoder.decode([UserInfoEcho].self, from: ["x"]) == [UserInfoEcho(seen: "decoding")])
    }

    // MARK: decoding numbers across representations

    @Test("numbers decode across representations only when exact")
    func exactNumbers() throws {
        #expect(try decoder.decode(Double.self, from: .float(12.34)) == Double(Float(12.34)))
        #expect(try decoder.decode(Double.self, from: .integer(5)) == 5)
        #expect(try decoder.decode(Float.self, from: .double(0.1)) == Float(0.1))
        #expect(try decoder.decode(Float.self, from: .double(Double(Float(12.34)))) == Float(12.34))
        #expect(try decoder.decode(Float.self, from: .integer(16_777_216)) == 16_777_216)
        #expect(try decoder.decode(UInt8.self, from: .integer(255)) == 255)
        #expect(try decoder.decode(UInt64.self, from: .integer(PropertyListInteger(UInt64.max))) == UInt64.max)
        #expect(try decoder.decode(Double.self, from: .double(.infinity)) == .infinity)
        #expect(try decoder.decode(Float.self, from: .double(-.infinity)) == -.infinity)
        #expect(try decoder.decode(Float.self, from: .double(.nan)).isNaN)

        for (type, value) in [
            (Int8.self as any Decodable.Type, PropertyListValue.integer(300)),
            (UInt.self, .integer(-1)),
            (Int.self, .integer(PropertyListInteger(UInt64.max))),
            (Double.self, .integer(9_007_199_254_740_993)),
            (Float.self, .integer(16_777_217)),
            (Float.self, .double(0.123456789012)),
            (Float.self, .double(1e39)),
        ] {
            let error = #expect(throws: DecodingError.self) { try decoder.decode(type, from: value) }
            guard case .dataCorrupted = error else {
                Issue.record("\(type) from \(value): expected dataCorrupted, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("a value of the wrong kind is a type mismatch")
    func typeMismatches() throws {
        for (type, value) in [
            (Int.self as any Decodable.Type, PropertyListValue.double(3)),
            (Int.self, .string("3")),
            (Bool.self, .integer(1)),
            (String.self, .integer(1)),
            (Double.self, .bool(true)),
            (Date.self, .double(0)),
            (Data.self, .string("AA==")),
            (URL.self, .integer(1)),
            (Window.self, .array([1, 2])),
            ([Int].self, .dictionary([:])),
        ] {
            let error = #expect(throws: DecodingError.self) { try decoder.decode(type, from: value) }
            guard case .typeMismatch = error else {
                Issue.record("\(type) from \(value): expected typeMismatch, got \(String(describing: error))")
                continue
            }
        }
        let badURL = #expect(throws: DecodingError.self) { try decoder.decode(URL.self, from: "") }
        guard case .dataCorrupted = badURL else {
            Issue.record("expected dataCorrupted, got \(String(describing: badURL))")
            return
        }
    }

    @Test("errors carry the coding path of the offending value")
    func codingPathsInErrors() throws {
        let value: PropertyListValue = ["width": 1, "height": "tall"]
        let mismatch = #expect(throws: DecodingError.self) { try decoder.decode([String: [Window]].self, from: ["all": [["width": 1, "height": 2], value]]) }
        guard case .typeMismatch(_, let context) = mismatch else {
            Issue.record("expected typeMismatch, got \(String(describing: mismatch))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["all", "Index 1", "height"])

        let missing = #expect(throws: DecodingError.self) { try decoder.decode(Window.self, from: ["width": 1]) }
        guard case .keyNotFound(let key, _) = missing else {
            Issue.record("expected keyNotFound, got \(String(describing: missing))")
            return
        }
        #expect(key.stringValue == "height")
    }

    @Test("reading past the end of an array is valueNotFound")
    func pastTheEnd() throws {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Pair.self, from: [1]) }
        guard case .valueNotFound(_, let context) = error else {
            Issue.record("expected valueNotFound, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
    }

    @Test("a failed element decode does not advance the unkeyed container")
    func failedDecodeDoesNotAdvance() throws {
        struct Flexible: Decodable {
            var values: [String] = []
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                while !container.isAtEnd {
                    if let number = try? container.decode(Int.self) {
                        values.append("int \(number)")
                    } else {
                        values.append("string \(try container.decode(String.self))")
                    }
                }
            }
        }
        #expect(try decoder.decode(Flexible.self, from: [1, "a", 2]).values == ["int 1", "string a", "int 2"])
    }
}
