import Foundation
import Preferences
import Testing

/// A type that is not a property-list type.
private struct Point {
    var x = 1
    var y = 2
}

@Suite("Bridging values handed to set(_: Any?, forKey:)")
struct BridgingTests {
    let home = "/home/ann"

    private func bridge(_ value: Any) -> PropertyListValue? {
        PropertyListValue(bridging: value, home: home)
    }

    // MARK: scalars

    @Test("a PropertyListValue is taken as it is")
    func propertyListValue() {
        let value: PropertyListValue = ["a": [1, 2.5, "x"]]
        #expect(bridge(value) == value)
    }

    @Test("Bool stays a boolean and Int stays an integer, natively and as NSNumber")
    func boolVersusInt() {
        #expect(bridge(true) == .bool(true))
        #expect(bridge(false) == .bool(false))
        #expect(bridge(1) == .integer(1))
        #expect(bridge(0) == .integer(0))
        #expect(bridge(NSNumber(value: true)) == .bool(true))
        #expect(bridge(NSNumber(value: false)) == .bool(false))
        #expect(bridge(NSNumber(value: 1)) == .integer(1))
        #expect(bridge(NSNumber(value: 0)) == .integer(0))
        #expect(bridge(true as NSNumber) == .bool(true))
        #expect(bridge(NSNumber(value: Int8(1))) == .integer(1))
    }

    @Test("every integer width becomes an integer")
    func integerWidths() {
        #expect(bridge(Int.min) == .integer(PropertyListInteger(Int64.min)))
        #expect(bridge(Int8.min) == .integer(-128))
        #expect(bridge(Int16.max) == .integer(32767))
        #expect(bridge(Int32.min) == .integer(-2_147_483_648))
        #expect(bridge(Int64.max) == .integer(PropertyListInteger(Int64.max)))
        #expect(bridge(UInt.max) == .integer(PropertyListInteger(UInt64.max)))
        #expect(bridge(UInt8.max) == .integer(255))
        #expect(bridge(UInt16.max) == .integer(65535))
        #expect(bridge(UInt32.max) == .integer(4_294_967_295))
        #expect(bridge(UInt64.max) == .integer(PropertyListInteger(UInt64.max)))
        #expect(bridge(Int128(-5)) == .integer(-5))
        #expect(bridge(UInt128(UInt64.max)) == .integer(PropertyListInteger(UInt64.max)))
    }

    @Test("integers beyond the property-list range are rejected")
    func integerOutOfRange() {
        #expect(bridge(Int128(Int64.min) - 1) == nil)
        #expect(bridge(UInt128(UInt64.max) + 1) == nil)
    }

    @Test("NSNumbers keep their own type: integer, unsigned, float or double")
    func nsNumbers() {
        #expect(bridge(NSNumber(value: Int64.min)) == .integer(PropertyListInteger(Int64.min)))
        #expect(bridge(NSNumber(value: UInt64.max)) == .integer(PropertyListInteger(UInt64.max)))
        #expect(bridge(NSNumber(value: UInt32.max)) == .integer(4_294_967_295))
        #expect(bridge(NSNumber(value: -7)) == .integer(-7))
        #expect(bridge(NSNumber(value: Float(1.5))) == .float(1.5))
        #expect(bridge(NSNumber(value: 2.5)) == .double(2.5))
        #expect(bridge(NSDecimalNumber(string: "1.25")) == .double(1.25))
    }

    @Test("reals keep their width")
    func reals() {
        #expect(bridge(Float(12.34)) == .float(12.34))
        #expect(bridge(12.34) == .double(12.34))
        #expect(bridge(CGFloat(0.5)) == .double(0.5))
        #expect(bridge(Decimal(string: "2.5") as Any) == .double(2.5))
    }

    @Test("strings, substrings and NSStrings become strings")
    func strings() {
        #expect(bridge("héllo") == .string("héllo"))
        #expect(bridge("xhello".dropFirst()) == .string("hello"))
        #expect(bridge(NSString(string: "ns")) == .string("ns"))
        #expect(bridge(NSMutableString(string: "mutable")) == .string("mutable"))
    }

    @Test("dates and data, native and Foundation, keep their type")
    func datesAndData() {
        let date = Date(timeIntervalSinceReferenceDate: 123.5)
        #expect(bridge(date) == .date(date))
        #expect(bridge(NSDate(timeIntervalSinceReferenceDate: 123.5)) == .date(date))
        #expect(bridge(Data([0, 1, 255])) == .data(Data([0, 1, 255])))
        #expect(bridge(NSData(bytes: [7, 8] as [UInt8], length: 2)) == .data(Data([7, 8])))
    }

    @Test("URLs are stored as ~ paths or whole absolute strings")
    func urls() throws {
        #expect(bridge(URL(fileURLWithPath: "/home/ann/a.txt", isDirectory: false)) == .string("~/a.txt"))
        let web = try #require(URL(string: "https://example.com/a?b=1#c"))
        #expect(bridge(web) == .string("https://example.com/a?b=1#c"))
        #expect(bridge(try #require(NSURL(string: "https://example.com/x?y"))) == .string("https://example.com/x?y"))
    }

    // MARK: optionals

    @Test("optionals are unwrapped and a nil is not a property list")
    func optionals() {
        #expect(bridge(Optional(5) as Any) == .integer(5))
        #expect(bridge(Optional(Optional("x")) as Any) == .string("x"))
        #expect(bridge(Int?.none as Any) == nil)
        #expect(bridge([1, 2] as [Int?]) == .array([1, 2]))
        #expect(bridge([1, nil] as [Int?]) == nil)
        #expect(bridge(["a": nil] as [String: String?]) == nil)
        #expect(bridge(["a": [Optional(true)]] as [String: Any]) == .dictionary(["a": [true]]))
    }

    // MARK: collections

    @Test("arrays of any accepted element become arrays, nested ones too")
    func arrays() {
        #expect(bridge([1, 2, 3]) == .array([1, 2, 3]))
        #expect(bridge(["a", "b"]) == .array(["a", "b"]))
        #expect(bridge([true, false]) == .array([.bool(true), .bool(false)]))
        #expect(bridge([Float(1.5)]) == .array([.float(1.5)]))
        #expect(bridge([] as [Any]) == .array([]))
        let mixed: [Any] = [1, "two", 3.0, true, [4, [5]], ["k": "v"], Data([6])]
        #expect(
            bridge(mixed)
                == .array([1, "two", .double(3), .bool(true), [4, [5]], ["k": "v"], .data(Data([6]))]))
    }

    @Test("NSArrays keep booleans apart from numbers")
    func nsArrays() {
        let array = NSArray(array: [
            NSNumber(value: true), NSNumber(value: 1), NSNumber(value: 2.5), NSString(string: "s"),
            NSArray(array: [NSNumber(value: false)]),
        ])
        #expect(bridge(array) == .array([.bool(true), 1, .double(2.5), "s", [.bool(false)]]))
    }

    @Test("dictionaries with string keys become dictionaries, nested ones too")
    func dictionaries() {
        #expect(bridge(["a": 1, "b": 2]) == .dictionary(["a": 1, "b": 2]))
        let nested: [String: Any] = ["list": [1, "x"], "map": ["deep": ["deeper": true]], "n": 1.5]
        #expect(bridge(nested) == .dictionary(["list": [1, "x"], "map": ["deep": ["deeper": true]], "n": .double(1.5)]))
        let hashable: [AnyHashable: Any] = ["a": 1, AnyHashable("b"): "two"]
        #expect(bridge(hashable) == .dictionary(["a": 1, "b": "two"]))
        let ns = NSDictionary(dictionary: ["flag": NSNumber(value: true), "count": NSNumber(value: 3)])
        #expect(bridge(ns) == .dictionary(["flag": .bool(true), "count": 3]))
    }

    @Test("a dictionary with any non-string key is rejected")
    func nonStringKeys() {
        #expect(bridge([1: "one"]) == nil)
        #expect(bridge([AnyHashable("a"): 1, AnyHashable(2): 2] as [AnyHashable: Any]) == nil)
        #expect(bridge(NSDictionary(dictionary: [NSNumber(value: 1): "x"])) == nil)
    }

    // MARK: rejections

    @Test("values that are not property-list types are rejected, alone or inside collections")
    func rejections() {
        #expect(bridge(Point()) == nil)
        #expect(bridge(NSObject()) == nil)
        #expect(bridge(NSNull()) == nil)
        #expect(bridge(Set([1, 2])) == nil)
        #expect(bridge((1, 2)) == nil)
        #expect(bridge([1, Point()] as [Any]) == nil)
        #expect(bridge(["ok": 1, "bad": NSObject()] as [String: Any]) == nil)
        #expect(bridge([["deep": [Point()]]] as [Any]) == nil)
        #expect(bridge(NSArray(array: [NSObject()])) == nil)
    }

    @Test("a rejection names the offending part's type and where it sits")
    func failureDescriptions() {
        func failure(_ value: Any) -> String? {
            do {
                _ = try PropertyListValue.bridging(value, home: home)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure(Point()) == "value of type Point is not a property-list type")
        #expect(failure(["items": [1, 2, Point()]] as [String: Any]) == "value of type Point at [\"items\"][2] is not a property-list type")
        #expect(failure([1, nil] as [Int?]) == "value of type Optional<Int> at [1] is nil, and property lists have no null")
        #expect(failure([[1: "x"]] as [Any]) == "value of type Dictionary<Int, String> at [0] has a key that is not a string")
        #expect(failure(UInt128.max) == "value of type UInt128 is \(UInt128.max), outside the property-list range \(Int64.min) ... \(UInt64.max)")
        #expect(failure(["ok": 1]) == nil)
    }

    // MARK: bridged

    @Test("bridged gives native Swift values of the matching type")
    func bridgedTypes() throws {
        #expect(PropertyListValue.bool(true).bridged as? Bool == true)
        #expect(type(of: PropertyListValue.bool(true).bridged) == Bool.self)
        #expect(type(of: PropertyListValue.integer(1).bridged) == Int.self)
        #expect(PropertyListValue.integer(-9).bridged as? Int == -9)
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).bridged as? UInt64 == UInt64.max)
        #expect(type(of: PropertyListValue.float(1.5).bridged) == Float.self)
        #expect(type(of: PropertyListValue.double(1.5).bridged) == Double.self)
        #expect(PropertyListValue.string("s").bridged as? String == "s")
        let date = Date(timeIntervalSinceReferenceDate: 9)
        #expect(PropertyListValue.date(date).bridged as? Date == date)
        #expect(PropertyListValue.data(Data([1])).bridged as? Data == Data([1]))
        let array = try #require(PropertyListValue.array([1, "a", [.bool(true)]]).bridged as? [Any])
        #expect(array[0] as? Int == 1)
        #expect(array[1] as? String == "a")
        #expect(type(of: try #require(array[2] as? [Any])[0]) == Bool.self)
        let dictionary = try #require(PropertyListValue.dictionary(["k": ["n": 2]]).bridged as? [String: Any])
        #expect((dictionary["k"] as? [String: Any])?["n"] as? Int == 2)
    }

    /// A value to bridge, named for the test log: a container prints as a line of hundreds of
    /// characters, `PropertyList.PropertyListValue` at every element.
    struct Value: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let plist: PropertyListValue
        init(_ name: String, _ plist: PropertyListValue) {
            self.testDescription = name
            self.plist = plist
        }
    }

    @Test(
        "bridging a bridged value gives the same value back",
        arguments: [
            Value("false", .bool(false)), Value("integer 0", .integer(0)), Value("integer 1", .integer(1)),
            Value("UInt64.max", .integer(PropertyListInteger(UInt64.max))), Value("Int64.min", .integer(PropertyListInteger(Int64.min))),
            Value("float", .float(12.34)), Value("double", .double(-0.5)), Value("empty string", .string("")),
            Value("date", .date(Date(timeIntervalSinceReferenceDate: -1))), Value("empty data", .data(Data())),
            Value("array of every kind", .array([.bool(true), 1, .float(2), .double(2), ["x": [.data(Data([1]))]]])),
            Value("dictionary with empty containers", .dictionary(["a": [], "b": [:], "c": .bool(false), "d": 0])),
        ])
    func roundTrip(_ value: Value) {
        #expect(PropertyListValue(bridging: value.plist.bridged) == value.plist)
    }
}
