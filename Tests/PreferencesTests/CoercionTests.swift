import Foundation
import Preferences
import Testing

@Suite("Typed-getter coercions")
struct CoercionTests {
    // MARK: bool

    @Test(
        "bool is true for strings starting with Y, y, T, t or a digit 1-9",
        arguments: ["YES", "yes", "Y", "y", "true", "TRUE", "t", "1", "01", "007", " t", "\n\t1", "+1", "-1", "-y", "00y", "9abc", "Yellow"])
    func boolTrueStrings(text: String) {
        #expect(PropertyListValue.string(text).coercedBool)
    }

    @Test(
        "bool is false for other strings",
        arguments: ["NO", "no", "false", "0", "000", "", "   ", "abc", "+-1", "N", "f", "x1", "0x1", "\u{0661}"])
    func boolFalseStrings(text: String) {
        #expect(!PropertyListValue.string(text).coercedBool)
    }

    @Test("bool is true for non-zero numbers and false for zero")
    func boolFromNumbers() {
        #expect(PropertyListValue.integer(5).coercedBool)
        #expect(PropertyListValue.integer(-1).coercedBool)
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).coercedBool)
        #expect(!PropertyListValue.integer(0).coercedBool)
        #expect(PropertyListValue.double(0.5).coercedBool)
        #expect(PropertyListValue.float(-0.25).coercedBool)
        #expect(!PropertyListValue.double(0).coercedBool)
        #expect(!PropertyListValue.double(-0.0).coercedBool)
        #expect(!PropertyListValue.float(0).coercedBool)
        #expect(PropertyListValue.bool(true).coercedBool)
        #expect(!PropertyListValue.bool(false).coercedBool)
    }

    @Test("bool is false for dates, data and collections")
    func boolFromOthers() {
        #expect(!PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 1)).coercedBool)
        #expect(!PropertyListValue.data(Data([1])).coercedBool)
        #expect(!PropertyListValue.array([true]).coercedBool)
        #expect(!PropertyListValue.dictionary(["a": true]).coercedBool)
    }

    // MARK: integer

    @Test("integer truncates reals toward zero")
    func integerTruncates() {
        #expect(PropertyListValue.double(12.34).coercedInteger == 12)
        #expect(PropertyListValue.double(12.99).coercedInteger == 12)
        #expect(PropertyListValue.double(-12.9).coercedInteger == -12)
        #expect(PropertyListValue.float(7.75).coercedInteger == 7)
        #expect(PropertyListValue.double(.nan).coercedInteger == 0)
    }

    @Test("integer clamps values beyond Int's range")
    func integerClamps() {
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).coercedInteger == Int.max)
        #expect(PropertyListValue.double(1e30).coercedInteger == Int.max)
        #expect(PropertyListValue.double(-1e30).coercedInteger == Int.min)
        #expect(PropertyListValue.double(.infinity).coercedInteger == Int.max)
        #expect(PropertyListValue.double(-.infinity).coercedInteger == Int.min)
        #expect(PropertyListValue.string("99999999999999999999").coercedInteger == Int.max)
        #expect(PropertyListValue.string("-99999999999999999999").coercedInteger == Int.min)
        #expect(PropertyListValue.string("-9223372036854775808").coercedInteger == Int.min)
        #expect(PropertyListValue.string("9223372036854775807").coercedInteger == Int.max)
    }

    @Test(
        "integer parses the leading decimal number of a string",
        arguments: [
            ("1.0", 1), ("42abc", 42), ("12abc", 12), ("abc", 0), ("", 0), ("  -42", -42), ("+5", 5),
            ("1e3", 1), ("0x10", 0), ("007", 7), ("- 1", 0),
        ])
    func integerFromStrings(text: String, expected: Int) {
        #expect(PropertyListValue.string(text).coercedInteger == expected)
    }

    @Test("integer is 1 or 0 for booleans and 0 for non-numbers")
    func integerFromOthers() {
        #expect(PropertyListValue.bool(true).coercedInteger == 1)
        #expect(PropertyListValue.bool(false).coercedInteger == 0)
        #expect(PropertyListValue.integer(-7).coercedInteger == -7)
        #expect(PropertyListValue.data(Data([9])).coercedInteger == 0)
        #expect(PropertyListValue.array([1]).coercedInteger == 0)
        #expect(PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 50)).coercedInteger == 0)
    }

    // MARK: double and float

    @Test("double keeps a float's own precision")
    func doubleOfFloat() {
        let value = PropertyListValue.float(12.34)
        #expect(value.coercedDouble == Double(Float(12.34)))
        #expect(value.coercedDouble != 12.34)
        #expect(PropertyListValue.double(12.34).coercedDouble == 12.34)
    }

    @Test("double and float convert numbers and booleans")
    func doubleFromNumbers() {
        #expect(PropertyListValue.integer(-3).coercedDouble == -3)
        #expect(PropertyListValue.integer(PropertyListInteger(UInt64.max)).coercedDouble == 18446744073709551615.0)
        #expect(PropertyListValue.bool(true).coercedDouble == 1)
        #expect(PropertyListValue.bool(false).coercedDouble == 0)
        #expect(PropertyListValue.bool(true).coercedFloat == 1)
        #expect(PropertyListValue.double(12.34).coercedFloat == Float(12.34))
        #expect(PropertyListValue.integer(16_777_217).coercedFloat == 16_777_216)
        #expect(PropertyListValue.array([]).coercedDouble == 0)
        #expect(PropertyListValue.dictionary([:]).coercedFloat == 0)
    }

    @Test(
        "double parses the leading decimal number of a string",
        arguments: [
            ("12.34", 12.34), (" 1.5e3x", 1500), (".5", 0.5), ("5.", 5), ("-2.5", -2.5), ("+.25e+2", 25),
            ("1e", 1), ("1e+", 1), ("abc", 0), ("", 0), ("inf", 0), ("nan", 0), ("0x10", 0), (".", 0), ("-", 0),
            ("\n 7", 7), ("1.2.3", 1.2),
        ])
    func doubleFromStrings(text: String, expected: Double) {
        #expect(PropertyListValue.string(text).coercedDouble == expected)
    }

    @Test("double of a string overflows to infinity, as Apple documents")
    func doubleOverflow() {
        #expect(PropertyListValue.string("1e400").coercedDouble == .infinity)
        #expect(PropertyListValue.string("-1e400").coercedDouble == -.infinity)
        #expect(PropertyListValue.string("1e40").coercedFloat == .infinity)
    }

    @Test("float parses a string straight to Float")
    func floatFromString() {
        #expect(PropertyListValue.string("12.34").coercedFloat == Float(12.34))
        #expect(PropertyListValue.string("0.1 apples").coercedFloat == Float(0.1))
    }

    // MARK: string

    @Test(
        "string prints numbers in their shortest form",
        arguments: [
            (PropertyListValue.bool(true), "1"), (.bool(false), "0"),
            (.integer(42), "42"), (.integer(-7), "-7"), (.integer(PropertyListInteger(UInt64.max)), "18446744073709551615"),
            (.integer(PropertyListInteger(Int64.min)), "-9223372036854775808"),
            (.double(12.34), "12.34"), (.float(12.34), "12.34"), (.double(12.0), "12"), (.float(12), "12"),
            (.double(0.1), "0.1"), (.float(0.1), "0.1"), (.double(-0.5), "-0.5"), (.double(0), "0"), (.double(-0.0), "-0"),
            (.double(1e15), "1000000000000000"), (.double(1e16), "1e+16"), (.double(1e20), "1e+20"),
            (.double(1.5e-7), "1.5e-07"), (.double(0.0001), "0.0001"), (.float(1e8), "100000000"),
            (.float(16_777_216), "16777216"), (.double(.nan), "nan"), (.double(.infinity), "inf"),
            (.float(-.infinity), "-inf"), (.double(0.1 + 0.2), "0.30000000000000004"),
        ])
    func stringOfNumbers(value: PropertyListValue, expected: String) {
        #expect(value.coercedString == expected)
    }

    @Test("string is the string itself, and nil for dates, data and collections")
    func stringOfOthers() {
        #expect(PropertyListValue.string(" as is ").coercedString == " as is ")
        #expect(PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 0)).coercedString == nil)
        #expect(PropertyListValue.data(Data("x".utf8)).coercedString == nil)
        #expect(PropertyListValue.array(["x"]).coercedString == nil)
        #expect(PropertyListValue.dictionary(["x": "y"]).coercedString == nil)
    }

    // MARK: collections and data

    @Test("stringArray is the strings of an all-string array and nil otherwise")
    func stringArray() {
        #expect(PropertyListValue.array(["a", "b"]).coercedStringArray == ["a", "b"])
        #expect(PropertyListValue.array([]).coercedStringArray == [])
        #expect(PropertyListValue.array(["a", 1]).coercedStringArray == nil)
        #expect(PropertyListValue.array(["a", ["b"]]).coercedStringArray == nil)
        #expect(PropertyListValue.string("a").coercedStringArray == nil)
        #expect(PropertyListValue.dictionary(["a": "b"]).coercedStringArray == nil)
    }

    @Test("array and dictionary give bridged contents, only for their own kind")
    func arrayAndDictionary() throws {
        let array = try #require(PropertyListValue.array(["a", 1, true, ["k": 2.5]]).coercedArray)
        #expect(array.count == 4)
        #expect(array[0] as? String == "a")
        #expect(array[1] as? Int == 1)
        #expect(array[2] as? Bool == true)
        #expect((array[3] as? [String: Any])?["k"] as? Double == 2.5)
        #expect(PropertyListValue.string("a").coercedArray == nil)
        #expect(PropertyListValue.dictionary([:]).coercedArray == nil)

        let dictionary = try #require(PropertyListValue.dictionary(["n": 3, "s": "x"]).coercedDictionary)
        #expect(dictionary["n"] as? Int == 3)
        #expect(dictionary["s"] as? String == "x")
        #expect(PropertyListValue.array([]).coercedDictionary == nil)
    }

    @Test("data is returned only for data values")
    func data() {
        #expect(PropertyListValue.data(Data([1, 2])).coercedData == Data([1, 2]))
        #expect(PropertyListValue.string("AQI=").coercedData == nil)
        #expect(PropertyListValue.array([1, 2]).coercedData == nil)
    }
}
