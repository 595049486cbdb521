import Foundation
import PropertyList
import TestSupport
import Testing

/// The old-style (OpenStep) text format: the decoder's grammar, errors and bounds, and the
/// printer's output against text in macOS `defaults read`'s exact format.
@Suite("OpenStep text property lists")
struct OpenStepPropertyListTests {
    let decoder = OpenStepPropertyListDecoder()
    let printer = OpenStepPropertyListEncoder()

    /// Decodes `text`, requiring a `PropertyListError` with `code` whose text mentions `words`.
    @discardableResult
    func expectError(
        _ text: String, _ code: PropertyListError.Code, mentioning words: String? = nil,
        decoder: OpenStepPropertyListDecoder = OpenStepPropertyListDecoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        let error = expectThrows(code, code: \.code, mentioning: words, sourceLocation: sourceLocation) {
            () throws(PropertyListError) in try decoder.decode(text)
        }
        if let error { #expect(error.offset != nil, "\(error) names no offset", sourceLocation: sourceLocation) }
        return error
    }

    // MARK: Decoding

    @Test("a defaults-write style dictionary decodes, every scalar a string")
    func defaultsWriteExample() throws {
        let value = try decoder.decode("{ a = 1; b = (x, y); }")
        #expect(value == ["a": "1", "b": ["x", "y"]])
    }

    @Test("the last ';' of a dictionary may be left out, and a trailing comma ends an array")
    func optionalSeparators() throws {
        #expect(try decoder.decode("{ a = 1; b = 2 }") == ["a": "1", "b": "2"])
        #expect(try decoder.decode("(a, b,)") == ["a", "b"])
        #expect(try decoder.decode("( a )") == ["a"])
    }

    @Test("empty containers and nested containers decode")
    func containers() throws {
        #expect(try decoder.decode("{}") == [:])
        #expect(try decoder.decode("()") == [])
        #expect(try decoder.decode("{ }") == [:])
        let nested = try decoder.decode("{ outer = { inner = ( (), {}, ( deep ) ); }; list = (); }")
        #expect(nested == ["outer": ["inner": [[], [:], ["deep"]]], "list": []])
    }

    @Test("a repeated key keeps its last value")
    func repeatedKey() throws {
        #expect(try decoder.decode("{ a = first; a = second; }") == ["a": "second"])
    }

    @Test("numbers, booleans and dates are strings in this format")
    func scalarsAreStrings() throws {
        #expect(try decoder.decode("(1, -5, 2.5, YES, true, 2024-01-02)") == ["1", "-5", "2.5", "YES", "true", "2024-01-02"])
        #expect(try decoder.decode("42") == "42")
    }

    @Test("unquoted strings take letters, digits and _ $ + / : . -")
    func unquotedCharacters() throws {
        #expect(try decoder.decode("a_b$c+d/e:f.g-h09") == "a_b$c+d/e:f.g-h09")
        #expect(try decoder.decode("/usr/local/bin") == "/usr/local/bin")
        #expect(try decoder.decode("-Key") == "-Key")
        // Two slashes inside a string are part of it; a comment only starts between tokens.
        #expect(try decoder.decode("(http://example.com)") == ["http://example.com"])
    }

    @Test("data is hex digits with whitespace anywhere between them")
    func data() throws {
        #expect(try decoder.decode("<0fbd 77a0>") == .data(Data([0x0F, 0xBD, 0x77, 0xA0])))
        #expect(try decoder.decode("<0F BD\n7 7\tA0>") == .data(Data([0x0F, 0xBD, 0x77, 0xA0])))
        #expect(try decoder.decode("<>") == .data(Data()))
        #expect(try decoder.decode("{ d = < 00 ff >; }") == ["d": .data(Data([0, 0xFF]))])
    }

    @Test("data with an odd number of digits or a non-hex character is invalid data")
    func badData() {
        expectError("<0fb>", .invalidData, mentioning: "odd number of hexadecimal digits (3)")
        expectError("<0g>", .invalidData, mentioning: "'g'")
        expectError("<0102", .truncated, mentioning: "unterminated data")
    }

    @Test(
        "quoted strings decode every escape",
        arguments: [
            (#""a\ab""#, "a\u{7}b"),
            (#""\b\f\v""#, "\u{8}\u{C}\u{B}"),
            (#""line\nnext\rret\ttab""#, "line\nnext\rret\ttab"),
            (#""say \"hi\" it\'s \\ ok""#, "say \"hi\" it's \\ ok"),
            (#"'single \' and " inside'"#, "single ' and \" inside"),
            (#""\101\102\103""#, "ABC"),
            (#""\0x""#, "\u{0}x"),
            (#""\0123""#, "\u{A}3"),
            (#""\351t\351""#, "été"),
            (#""caf\U00e9""#, "café"),
            (#""caf\U00E9""#, "café"),
            (#""caf\u00e9""#, "café"),
            (#""\U20ac 5""#, "€ 5"),
            (#""\U41\U042""#, "AB"),
            (#""\Ud83d\Ude00!""#, "😀!"),
            (#""\q\%""#, "q%"),
            (#""raw ünïcödé 🎉""#, "raw ünïcödé 🎉"),
            (#""""#, ""),
            (#"''"#, ""),
        ])
    func escapes(text: String, expected: String) throws {
        #expect(try decoder.decode(text) == .string(expected))
    }

    @Test("unpaired surrogate escapes are invalid strings")
    func surrogates() {
        expectError(#""\Ud83d""#, .invalidString, mentioning: "high surrogate")
        expectError(#""\Ud83dx""#, .invalidString, mentioning: "high surrogate")
        expectError(#""\Ud83d\U0041""#, .invalidString, mentioning: "non-surrogate")
        expectError(#""\Ude00""#, .invalidString, mentioning: "low surrogate")
        expectError(#""\Uxyz""#, .syntax, mentioning: "hexadecimal digits")
        expectError(#""\400""#, .syntax, mentioning: "\\377")
    }

    @Test("comments and whitespace may appear between any two tokens")
    func comments() throws {
        let text = """
            // leading line comment
            /* block */ { /* before key */ a /* after key */ = // line
              ( x /* in array */ , y ) /* before ; */ ; // end
              b = "c"; /* multi
              line */ }
            // trailing
            """
        #expect(try decoder.decode(text) == ["a": ["x", "y"], "b": "c"])
        #expect(try decoder.decode("\t\r\n\u{B}\u{C} a \n") == "a")
    }

    // MARK: Errors

    @Test("a missing ';' names the key, the line and the column")
    func missingSemicolon() {
        let error = expectError("{ a = 1; b = 2 c = 3; }", .syntax)
        #expect(error?.reason == #"expected ';' after the value of key "b" at line 1, column 16"#)
        #expect(error?.offset == 15)
    }

    @Test("errors on later lines count lines and columns in characters, not bytes")
    func laterLines() {
        let error = expectError("{\n  a = (x,\n    y\n  ;\n}", .syntax)
        #expect(error?.reason == "expected ',' or ')' after array element 2 at line 4, column 3")
        // "é" is two bytes but one column.
        let accented = expectError("{ \"é\" = x y }", .syntax)
        #expect(accented?.reason == #"expected ';' after the value of key "é" at line 1, column 11"#)
        #expect(accented?.offset == 11)
    }

    @Test("each kind of syntax error says what was expected")
    func syntaxErrors() {
        expectError("{ a 1; }", .syntax, mentioning: #"expected '=' after key "a" at line 1, column 5"#)
        expectError("{ a = @; }", .syntax, mentioning: "unexpected '@' where a value was expected at line 1, column 7")
        expectError("(a b)", .syntax, mentioning: "expected ',' or ')' after array element 1")
        expectError("(,)", .syntax, mentioning: "unexpected ','")
        expectError("{ ; }", .syntax, mentioning: "where a key or '}' was expected")
        expectError("{ a = b; ) }", .syntax, mentioning: "unexpected ')'")
        expectError("\u{1}", .syntax, mentioning: "U+0001")
        expectError("{ (a) = b; }", .invalidKey, mentioning: "found an array")
        expectError("{ {} = b; }", .invalidKey, mentioning: "found a dictionary")
        expectError("{ <00> = b; }", .invalidKey, mentioning: "found data")
    }

    @Test("text that ends early is truncated, wherever it ends")
    func truncated() {
        expectError("", .truncated, mentioning: "holds no value")
        expectError("  // only a comment", .truncated, mentioning: "holds no value")
        expectError("(a, ", .truncated, mentioning: "array opened at line 1, column 1 is not closed")
        expectError("(a, b", .truncated, mentioning: "after array element 2, but the text ends")
        expectError("{ a = b;", .truncated, mentioning: "dictionary opened at line 1, column 1")
        expectError("{ a = ", .truncated, mentioning: "expected a value")
        expectError("{ a ", .truncated, mentioning: "expected '='")
        expectError("{ a = b", .truncated, mentioning: "expected ';'")
        expectError("\"abc", .truncated, mentioning: "unterminated quoted string, opened at line 1, column 1")
        expectError("\"abc\\", .truncated, mentioning: "inside an escape")
        expectError("(a /* comment", .truncated, mentioning: "unterminated comment")
        let document = #"{ k = "v\n"; list = (a, <0102>, 'q'); d = { x = y; }; } // end"#
        let bytes = Array(document.utf8)
        // Every proper prefix, cut anywhere (only at character boundaries: this is a String API).
        for length in 0..<bytes.count where length == 0 || bytes[length] & 0xC0 != 0x80 {
            let prefix = String(decoding: bytes[..<length], as: UTF8.self)
            if length >= bytes.count - 7 { continue }  // cutting inside the final comment leaves a valid document
            do {
                let value = try decoder.decode(prefix)
                Issue.record("a prefix of \(length) bytes decoded to \(value)")
            } catch {
                #expect(error.offset != nil)
            }
        }
        #expect(throws: Never.self) { try decoder.decode(document) }
    }

    @Test("anything but whitespace and comments after the value is trailing content")
    func trailingContent() {
        expectError("(a) b", .trailingContent, mentioning: "unexpected 'b' after the top-level value at line 1, column 5")
        expectError("a b", .trailingContent)
        expectError("{ a = b; } }", .trailingContent)
        expectError("\"x\";", .trailingContent)
    }

    // MARK: Bounds

    @Test("100,000 nested '(' fail at the depth limit with a typed error, without exhausting the stack")
    func deepNesting() {
        let text = String(repeating: "(", count: 100_000)
        expectError(text, .tooDeep, mentioning: "deeper than 64")
        let braces = String(repeating: "{a=", count: 100_000)
        expectError(braces, .tooDeep)
    }

    @Test("64 nested containers decode and 65 do not; a tighter depth limit is honoured")
    func depthLimit() throws {
        let nested64 = String(repeating: "(", count: 64) + String(repeating: ")", count: 64)
        #expect(throws: Never.self) { try decoder.decode(nested64) }
        let nested65 = String(repeating: "(", count: 65) + String(repeating: ")", count: 65)
        expectError(nested65, .tooDeep, mentioning: "at line 1, column 65")
        let shallow = OpenStepPropertyListDecoder(limits: PropertyListLimits(depth: 2))
        #expect(throws: Never.self) { try shallow.decode("{ a = (b); }") }
        expectError("{ a = ((b)); }", .tooDeep, decoder: shallow)
    }

    @Test("values and keys count against the expanded-object limit")
    func valueLimit() throws {
        let tight = OpenStepPropertyListDecoder(limits: PropertyListLimits(expandedObjectCount: 10))
        // The array and nine elements are ten values.
        #expect(throws: Never.self) { try tight.decode("(1,2,3,4,5,6,7,8,9)") }
        expectError("(1,2,3,4,5,6,7,8,9,10)", .tooManyExpandedObjects, decoder: tight)
        // A dictionary, four keys and four values are nine; a fifth key is the tenth, its value the eleventh.
        #expect(throws: Never.self) { try tight.decode("{a=1;b=2;c=3;d=4;}") }
        expectError("{a=1;b=2;c=3;d=4;e=5;}", .tooManyExpandedObjects, decoder: tight)
        // The default limit: 100,000 values.
        let many = "(" + String(repeating: "a,", count: 99_999) + ")"
        #expect(throws: Never.self) { try decoder.decode(many) }
        expectError("(" + String(repeating: "a,", count: 100_000) + ")", .tooManyExpandedObjects, mentioning: "100000")
    }

    @Test("text longer than 16 MiB is refused before parsing")
    func inputCap() throws {
        #expect(OpenStepPropertyListDecoder.maximumInputLength == 16 * 1024 * 1024)
        let limit = OpenStepPropertyListDecoder.maximumInputLength
        let atLimit = String(repeating: "a", count: limit)
        #expect(try decoder.decode(atLimit).stringValue?.utf8.count == limit)
        do {
            _ = try decoder.decode(atLimit + "a")
            Issue.record("a text of the limit plus one byte decoded")
        } catch {
            #expect(error.code == .inputTooLarge)
            #expect(error.reason.contains("\(limit + 1) bytes"))
        }
    }

    // MARK: Printing

    @Test("the printer writes defaults read's layout exactly")
    func printerLayout() {
        let value: PropertyListValue = [
            "NSNavLastRootDirectory": "~/Documents",
            "NSWindow Frame": "1 2 3 4",
            "arr": [1, 2],
            "dict": ["a": 1],
            "flag": true,
        ]
        let expected = """
            {
                NSNavLastRootDirectory = "~/Documents";
                "NSWindow Frame" = "1 2 3 4";
                arr =     (
                    1,
                    2
                );
                dict =     {
                    a = 1;
                };
                flag = 1;
            }
            """
        #expect(printer.encode(value) == expected)
    }

    @Test("containers inside arrays indent as macOS prints the Dock's persistent-apps")
    func printerNestedInArrays() {
        let value: PropertyListValue = [
            "persistent-apps": [
                ["GUID": 568_757_455, "tile-data": ["file-label": "Launchpad", "file-data": ["_CFURLStringType": 15]]],
                [],
            ],
            "empty": [:],
            "none": [],
        ]
        let expected = """
            {
                empty =     {
                };
                none =     (
                );
                "persistent-apps" =     (
                            {
                        GUID = 568757455;
                        "tile-data" =             {
                            "file-data" =                 {
                                "_CFURLStringType" = 15;
                            };
                            "file-label" = Launchpad;
                        };
                    },
                            (
                    )
                );
            }
            """
        #expect(printer.encode(value) == expected)
        #expect(printer.encode([:]) == "{\n}")
        #expect(printer.encode([]) == "(\n)")
        #expect(printer.encode([["a"]]) == "(\n        (\n        a\n    )\n)")
    }

    @Test(
        "strings are quoted unless they are ASCII letters and digits, and escaped inside quotes",
        arguments: [
            ("abc", "abc"),
            ("ABC123", "ABC123"),
            ("007", "007"),
            ("", #""""#),
            ("a b", #""a b""#),
            ("com.apple.Safari", #""com.apple.Safari""#),
            ("mod-count", #""mod-count""#),
            ("-5", #""-5""#),
            ("_CFURLString", #""_CFURLString""#),
            ("zh_CN:CN", #""zh_CN:CN""#),
            ("a/b", #""a/b""#),
            ("a$b", #""a$b""#),
            ("a+b", #""a+b""#),
            ("~/Documents", #""~/Documents""#),
            ("café", #""caf\U00e9""#),
            ("Safari浏览器", #""Safari\U6d4f\U89c8\U5668""#),
            ("😀", #""\Ud83d\Ude00""#),
            ("say \"hi\" \\ bye", #""say \"hi\" \\ bye""#),
            ("it's", #""it's""#),
            ("line\nnext\ttab", #""line\nnext\ttab""#),
            ("\r\u{0}\u{1}\u{7F}", #""\U000d\U0000\U0001\U007f""#),
        ])
    func quoting(string: String, expected: String) throws {
        #expect(printer.encode(["k": .string(string)]) == "{\n    k = \(expected);\n}")
        #expect(printer.encode(.string(string)) == expected)
        // Whatever the printer quotes, the decoder reads back.
        #expect(try decoder.decode(expected) == .string(string))
    }

    @Test("keys are quoted by the same rule and sorted by UTF-16 code units")
    func keys() {
        let value: PropertyListValue = ["b": 1, "B": 2, "a": 3, "_x": 4, "Z": 5, "a-b": 6, "é": 7, "": 8]
        let expected = """
            {
                "" = 8;
                B = 2;
                Z = 5;
                "_x" = 4;
                a = 3;
                "a-b" = 6;
                b = 1;
                "\\U00e9" = 7;
            }
            """
        #expect(printer.encode(value) == expected)
    }

    @Test(
        "numbers print as NSNumber describes them, quoted when that text needs it",
        arguments: [
            (PropertyListValue.bool(true), "1"),
            (.bool(false), "0"),
            (.integer(0), "0"),
            (.integer(42), "42"),
            (.integer(-5), #""-5""#),
            (.integer(PropertyListInteger(UInt64.max)), "18446744073709551615"),
            (.integer(PropertyListInteger(Int64.min)), #""-9223372036854775808""#),
            (.double(2), "2"),
            (.double(0.5), #""0.5""#),
            (.double(0.1), #""0.1""#),
            (.double(-0.0), #""-0""#),
            (.double(1e20), #""1e+20""#),
            (.double(801_447_579.684121), #""801447579.684121""#),
            (.double(.infinity), "inf"),
            (.double(-.infinity), #""-inf""#),
            (.double(.nan), "nan"),
            (.float(12.34), #""12.34""#),
            (.float(0.1), #""0.1""#),
            (.float(3), "3"),
        ])
    func numbers(value: PropertyListValue, expected: String) {
        #expect(printer.encode(["n": value]) == "{\n    n = \(expected);\n}")
        #expect(printer.encode([value]) == "(\n    \(expected)\n)")
    }

    @Test("dates print in UTC to the whole second, quoted")
    func dates() {
        let cases: [(Double, String)] = [
            (0, "2001-01-01 00:00:00 +0000"),
            // 2024-01-02 03:04:05 UTC.
            (725_857_445, "2024-01-02 03:04:05 +0000"),
            (725_857_445.999, "2024-01-02 03:04:05 +0000"),
            (-978_307_200, "1970-01-01 00:00:00 +0000"),
            (-0.5, "2000-12-31 23:59:59 +0000"),
            // 1900-03-01 (1900 is not a leap year) and 2000-02-29 (2000 is).
            (-3_182_198_400, "1900-03-01 00:00:00 +0000"),
            (-26_524_800, "2000-02-29 00:00:00 +0000"),
        ]
        for (seconds, text) in cases {
            let date = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: seconds))
            #expect(printer.encode(["d": date]) == "{\n    d = \"\(text)\";\n}", "\(seconds)")
        }
    }

    @Test("data prints as its length and bytes, abbreviated past 24 bytes as macOS does")
    func dataDescriptions() {
        #expect(printer.encode(.data(Data())) == "{length = 0, bytes = 0x}")
        #expect(printer.encode(.data(Data([1, 2, 3, 0xFE]))) == "{length = 4, bytes = 0x010203fe}")
        let twentyFour = Data((0..<24).map { UInt8($0) })
        #expect(printer.encode(.data(twentyFour)) == "{length = 24, bytes = 0x000102030405060708090a0b0c0d0e0f1011121314151617}")
        let thirtyTwo = Data((0..<32).map { UInt8($0) })
        #expect(
            printer.encode(["book": .data(thirtyTwo)])
                == "{\n    book = {length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f };\n}")
        let twentyFive = Data((0..<25).map { UInt8($0) })
        #expect(printer.encode(.data(twentyFive)) == "{length = 25, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 11121314 15161718 }")
    }

    @Test("a top-level scalar prints quoted by default and bare in the raw style")
    func topLevelScalars() {
        let raw = OpenStepPropertyListEncoder(topLevelScalarStyle: .raw)
        #expect(printer.encode("left") == "left")
        #expect(printer.encode("hello world") == #""hello world""#)
        #expect(raw.encode("hello world") == "hello world")
        #expect(raw.encode("café\n") == "café\n")
        #expect(printer.encode(.integer(-5)) == #""-5""#)
        #expect(raw.encode(.integer(-5)) == "-5")
        #expect(raw.encode(.double(0.5)) == "0.5")
        #expect(raw.encode(.bool(true)) == "1")
        #expect(raw.encode(.date(Date(timeIntervalSinceReferenceDate: 0))) == "2001-01-01 00:00:00 +0000")
        #expect(raw.encode(.data(Data([1]))) == "{length = 1, bytes = 0x01}")
        // Containers are the same in both styles: their strings are always quoted as needed.
        #expect(raw.encode(["a b"]) == printer.encode(["a b"]))
    }

    // MARK: Round trips

    @Test("parse, print and parse again gives the same value")
    func parsePrintParse() throws {
        let texts = [
            "{ a = 1; b = (x, y); }",
            #"{ "NSWindow Frame" = "1 2 3 4"; path = "~/Documents"; empty = ""; nested = { list = ( (), {}, "\"q\"" ); }; }"#,
            #"( "caf\U00e9", "\Ud83d\Ude00", 'it\'s', "tab\there", "\001\177\351", a.b-c_d )"#,
            "plain",
            #""quoted string""#,
        ]
        for text in texts {
            let value = try decoder.decode(text)
            let printed = printer.encode(value)
            let reparsed = try decoder.decode(printed)
            #expect(reparsed == value, "\(text) printed as \(printed)")
        }
    }

    @Test("strings of every kind of character print and parse back unchanged")
    func stringRoundTrip() throws {
        let palette: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "'", "\\", "\n", "\t", "\r", "\u{0}", "\u{1}", "\u{7F}", ".", "-", "_", "$", "/", ":",
            "+", "=", ";", ",", "(", ")", "{", "}", "<", ">", "é", "€", "中", "😀", "\u{301}", "\u{FEFF}", "\u{10FFFF}",
        ]
        var generator = SplitMix64(seed: 0x5EED)
        var strings: [PropertyListValue] = []
        for _ in 0..<500 {
            let length = Int(generator.next() % 12)
            var string = String.UnicodeScalarView()
            for _ in 0..<length { string.append(palette[Int(generator.next() % UInt64(palette.count))]) }
            strings.append(.string(String(string)))
        }
        let keyed = PropertyListValue.dictionary(
            Dictionary(strings.compactMap { $0.stringValue }.map { ($0, PropertyListValue.string($0)) }, uniquingKeysWith: { a, _ in a }))
        for value in strings + [.array(strings)] {
            let printed = printer.encode(value)
            let parsed = try decoder.decode(printed)
            #expect(Self.sameScalars(parsed, value), "\(printed)")
        }
        #expect(isIdentical(try decoder.decode(printer.encode(keyed)), keyed))
    }

    /// Strings compared scalar by scalar: `==` would equate canonically equivalent spellings
    /// and so hide a printer that normalizes.
    static func sameScalars(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { sameScalars($0, $1) }
        default: false
        }
    }
}
