import DefaultsCommand
import Foundation
import PropertyList
import Testing

/// The value parsing and formatting behind the tool, tested without a process.
@Suite("defaults value parsing and formatting")
struct ValueParsingTests {
    @Test("type flags parse their text; -int and -integer, -bool and -boolean are the same")
    func typed() throws {
        #expect(try WriteRequest(parsing: ["-string", "-5"]) == .set("-5"))
        #expect(try WriteRequest(parsing: ["-int", "-9223372036854775808"]) == .set(.integer(PropertyListInteger(Int64.min))))
        #expect(try WriteRequest(parsing: ["-integer", "18446744073709551615"]) == .set(.integer(PropertyListInteger(UInt64.max))))
        #expect(try WriteRequest(parsing: ["-float", "-2e3"]) == .set(.double(-2000)))
        #expect(try WriteRequest(parsing: ["-bool", "TRUE"]) == .set(true))
        #expect(try WriteRequest(parsing: ["-boolean", "no"]) == .set(false))
        #expect(try WriteRequest(parsing: ["-data", "<0F bd 77>"]) == .set(.data(Data([0x0f, 0xbd, 0x77]))))
        #expect(try WriteRequest(parsing: ["-data", "0x"]) == .set(.data(Data())))
        #expect(try WriteRequest(parsing: ["-date", "2024-02-29"]) == .set(.date(Date(timeIntervalSince1970: 1_709_164_800))))
    }

    @Test("an untyped word that looks like a negative number is a value, not a flag")
    func negativeNumber() throws {
        #expect(try WriteRequest(parsing: ["-5"]) == .set("-5"))
    }

    @Test("containers nest through property-list text, not through flags")
    func containers() throws {
        #expect(try WriteRequest(parsing: ["-array", "(1, (2))", "<real>0.5</real>"]) == .set([["1", ["2"]], .double(0.5)]))
        #expect(try WriteRequest(parsing: ["-dict-add", "a", "-int", "1"]) == .dictAdd(["a": 1]))
        #expect(try WriteRequest(parsing: ["-array-add"]) == .arrayAdd([]))
        #expect(throws: DefaultsFailure.self) { try WriteRequest(parsing: ["-array", "-array", "x"]) }
        #expect(throws: DefaultsFailure.self) { try WriteRequest(parsing: ["-dict", "-int", "1"]) }
    }

    @Test(
        "values that do not fit their type are refused",
        arguments: [
            ["-int", "1.5"], ["-int", "99999999999999999999"], ["-float", ""], ["-float", " 1"], ["-bool", "1"],
            ["-date", "2023-02-29"], ["-date", "2024-13-01"], ["-date", "2024-01-02 03:04:05"], ["-data", "abc"],
            [], ["-string"], ["{"], ["<plist><dict></plist>"],
        ])
    func refused(words: [String]) {
        #expect(throws: DefaultsFailure.self) { try WriteRequest(parsing: words) }
    }

    @Test("property-list text: old-style, XML fragments and documents, and plain strings")
    func text() throws {
        #expect(try PropertyListText.value(of: "plain words") == "plain words")
        #expect(try PropertyListText.value(of: "  { a = (x); }") == ["a": ["x"]])
        #expect(try PropertyListText.value(of: "<?xml version=\"1.0\"?><plist><true/></plist>") == true)
        #expect(try PropertyListText.value(of: "<date>2024-01-02T03:04:05Z</date>") == .date(Date(timeIntervalSince1970: 1_704_164_645)))
        #expect(try PropertyListText.value(of: "\"quoted\"") == "quoted")
        // Old-style data written in letters is data, not an XML element (the library's rule).
        #expect(try PropertyListText.value(of: "<deadbeef>") == .data(Data([0xde, 0xad, 0xbe, 0xef])))
        #expect(try PropertyListText.document(Array("\u{FEFF}<!-- by hand --><dict/>".utf8), source: "x") == [:])
        #expect(try PropertyListText.document(try BinaryPropertyListEncoder().encode(["k": 1]), source: "x") == ["k": 1])
        #expect(throws: DefaultsFailure.self) { try PropertyListText.document([0xff, 0xfe, 0x00], source: "x") }
    }

    @Test("JSON: every type, sorted keys, one line or indented")
    func json() {
        let value: PropertyListValue = [
            "b": true, "i": -3, "d": 0.25, "s": "a\"b\n\u{1}", "t": .date(Date(timeIntervalSince1970: 1_704_164_645)),
            "x": .data(Data([1, 2])), "a": [1, []], "o": [:], "n": .double(.nan),
        ]
        #expect(JSONText.encode(value, pretty: false)
            == #"{"a":[1,[]],"b":true,"d":0.25,"i":-3,"n":"nan","o":{},"s":"a\"b\n\u0001","t":"2024-01-02T03:04:05Z","x":"AQI="}"#)
        #expect(JSONText.encode(["k": [1]]) == "{\n  \"k\": [\n    1\n  ]\n}")
    }

    @Test("compact text for watch: one line, quoted as defaults read quotes")
    func compact() {
        #expect(CompactText.encode(nil) == "(none)")
        #expect(CompactText.encode(["a b": ["x", 1], "c": [:]]) == "{ \"a b\" = (x, 1); c = { }; }")
        #expect(CompactText.encode(.data(Data([0xab]))) == "{length = 1, bytes = 0xab}")
        #expect(CompactText.encode(true) == "1")
    }
}
