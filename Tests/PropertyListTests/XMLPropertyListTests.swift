import Foundation
import PropertyList
import TestSupport
import Testing

/// Apple's XML property-list format: the decoder's grammar and conversions, the encoder's
/// exact layout, round trips, interop with CPython's plistlib both ways, and hostile input.
@Suite("XML property lists", .ownThread)
struct XMLPropertyListTests {
    let decoder = XMLPropertyListDecoder()
    let encoder = XMLPropertyListEncoder()
    let script = fixturesDirectory.appendingPathComponent("plistlib_interop.py").path

    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// A whole document around `body`.
    static func document(_ body: String) -> String {
        header + body + "\n</plist>\n"
    }

    func decode(_ text: String) throws(PropertyListError) -> PropertyListValue {
        try decoder.decode(Array(text.utf8))
    }

    /// Decodes the value of one element, `<plist>` around it.
    func decodeElement(_ element: String) throws(PropertyListError) -> PropertyListValue {
        try decode(Self.document(element))
    }

    /// Decodes `bytes`, requiring a `PropertyListError` with `code` whose text mentions `words`.
    @discardableResult
    func expectError(
        _ bytes: [UInt8], _ code: PropertyListError.Code, mentioning words: String? = nil,
        decoder: XMLPropertyListDecoder = XMLPropertyListDecoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        let error = expectThrows(code, code: \.code, mentioning: words, sourceLocation: sourceLocation) {
            () throws(PropertyListError) in try decoder.decode(bytes)
        }
        if let error { #expect(error.offset != nil, "\(error) names no offset", sourceLocation: sourceLocation) }
        return error
    }

    @discardableResult
    func expectError(
        _ text: String, _ code: PropertyListError.Code, mentioning words: String? = nil,
        decoder: XMLPropertyListDecoder = XMLPropertyListDecoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        expectError(Array(text.utf8), code, mentioning: words, decoder: decoder, sourceLocation: sourceLocation)
    }

    // MARK: Decoding

    @Test("a document of every type decodes")
    func everyType() throws {
        let text = Self.document(
            """
            <dict>
            \t<key>array</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<string>two</string>
            \t\t<array/>
            \t</array>
            \t<key>data</key>
            \t<data>
            \tAQID
            \t</data>
            \t<key>date</key>
            \t<date>2024-01-02T03:04:05Z</date>
            \t<key>dict</key>
            \t<dict>
            \t\t<key>nested</key>
            \t\t<dict/>
            \t</dict>
            \t<key>no</key>
            \t<false/>
            \t<key>real</key>
            \t<real>0.5</real>
            \t<key>yes</key>
            \t<true/>
            </dict>
            """)
        let expected: PropertyListValue = [
            "array": [1, "two", []],
            "data": .data(Data([1, 2, 3])),
            "date": .date(Date(timeIntervalSinceReferenceDate: 725_857_445)),
            "dict": ["nested": [:]],
            "no": false,
            "real": 0.5,
            "yes": true,
        ]
        #expect(try decode(text) == expected)
    }

    /// Containers are built once their last entry is read, from one pending list shared by
    /// every level: each must get exactly its own entries, whatever is nested in it.
    @Test("nested containers keep their own entries; a repeated key keeps its last value")
    func nestedContainersAndRepeatedKeys() throws {
        let text = """
            <dict>
              <key>a</key><integer>1</integer>
              <key>inner</key>
              <dict><key>x</key><array><integer>1</integer><dict/><array><true/></array><integer>2</integer></array>
                    <key>x</key><string>last</string><key>y</key><dict><key>z</key><false/></dict></dict>
              <key>list</key><array><dict><key>k</key><integer>3</integer></dict><string>s</string></array>
              <key>a</key><integer>4</integer>
              <key>b</key><array/>
            </dict>
            """
        let expected: PropertyListValue = [
            "a": 4, "inner": ["x": "last", "y": ["z": false]], "list": [["k": 3], "s"], "b": [],
        ]
        #expect(try decodeElement(text) == expected)
        #expect(try decodeElement("<array><array><integer>1</integer></array><integer>2</integer></array>") == [[1], 2])
    }

    @Test("empty-element forms and empty content decode")
    func emptyForms() throws {
        #expect(try decodeElement("<string/>") == "")
        #expect(try decodeElement("<string></string>") == "")
        #expect(try decodeElement("<dict/>") == [:])
        #expect(try decodeElement("<dict></dict>") == [:])
        #expect(try decodeElement("<array/>") == [])
        #expect(try decodeElement("<array> </array>") == [])
        #expect(try decodeElement("<data/>") == .data(Data()))
        #expect(try decodeElement("<data>\n</data>") == .data(Data()))
        #expect(try decodeElement("<true/>") == true)
        #expect(try decodeElement("<true></true>") == true)
        #expect(try decodeElement("<false> </false>") == false)
        #expect(try decodeElement("<dict><key/><string/></dict>") == ["": ""])
    }

    @Test(
        "integers: decimal, hexadecimal, signed, Int64.min through UInt64.max",
        arguments: [
            ("0", PropertyListInteger(0)),
            ("42", 42),
            ("-1", -1),
            ("+7", 7),
            ("-0", 0),
            (" \n 12\t", 12),
            ("007", 7),
            ("0x1F", 31),
            ("0XfF", 255),
            ("-0x10", -16),
            ("9223372036854775807", PropertyListInteger(Int64.max)),
            ("9223372036854775808", PropertyListInteger(UInt64(1) << 63)),
            ("18446744073709551615", PropertyListInteger(UInt64.max)),
            ("0xFFFFFFFFFFFFFFFF", PropertyListInteger(UInt64.max)),
            ("-9223372036854775808", PropertyListInteger(Int64.min)),
            ("-0x8000000000000000", PropertyListInteger(Int64.min)),
        ])
    func integers(text: String, expected: PropertyListInteger) throws {
        #expect(try decodeElement("<integer>\(text)</integer>") == .integer(expected))
    }

    @Test(
        "integers out of range or malformed are typed errors",
        arguments: [
            ("18446744073709551616", PropertyListError.Code.integerOutOfRange),
            ("0x10000000000000000", .integerOutOfRange),
            ("-9223372036854775809", .integerOutOfRange),
            ("-18446744073709551615", .integerOutOfRange),
            ("99999999999999999999999999999", .integerOutOfRange),
            ("", .invalidNumber),
            ("  ", .invalidNumber),
            ("abc", .invalidNumber),
            ("1.5", .invalidNumber),
            ("1e3", .invalidNumber),
            ("0x", .invalidNumber),
            ("0xG", .invalidNumber),
            ("--1", .invalidNumber),
            ("- 1", .invalidNumber),
            ("1 2", .invalidNumber),
        ])
    func badIntegers(text: String, code: PropertyListError.Code) {
        expectError(Self.document("<integer>\(text)</integer>"), code, mentioning: "invalid <integer>")
    }

    @Test(
        "reals: decimal forms and the special values Apple and Python write",
        arguments: [
            ("1.5", 1.5),
            ("-0.25", -0.25),
            ("2", 2.0),
            ("1e10", 1e10),
            ("1E-5", 1e-5),
            ("2.5e+3", 2500.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("+3", 3.0),
            (" 2.5\n", 2.5),
            ("0.1", 0.1),
            ("3.141592653589793", Double.pi),
            ("1.7976931348623157e+308", Double.greatestFiniteMagnitude),
            ("5e-324", Double.leastNonzeroMagnitude),
            ("1e999", Double.infinity),
            ("inf", Double.infinity),
            ("-inf", -Double.infinity),
            ("+infinity", Double.infinity),
            ("-Infinity", -Double.infinity),
            ("INFINITY", Double.infinity),
            ("+inf", Double.infinity),
        ])
    func reals(text: String, expected: Double) throws {
        #expect(try decodeElement("<real>\(text)</real>") == .double(expected))
    }

    @Test("NaN in any case decodes as NaN, and -0 keeps its sign")
    func specialReals() throws {
        for text in ["nan", "NaN", "NAN"] {
            let value = try decodeElement("<real>\(text)</real>")
            guard case .double(let double) = value else {
                Issue.record("\(text) decoded to \(value)")
                continue
            }
            #expect(double.isNaN)
        }
        #expect(isIdentical(try decodeElement("<real>-0</real>"), .double(-0.0)))
        #expect(isIdentical(try decodeElement("<real>-0.0</real>"), .double(-0.0)))
    }

    @Test("malformed reals are invalid numbers", arguments: ["", "abc", "1e", "1e+", "1.2.3", ".", "0x1p3", "1,5", "++1", "nan1", "in f", "1 2"])
    func badReals(text: String) {
        expectError(Self.document("<real>\(text)</real>"), .invalidNumber, mentioning: "invalid <real>")
    }

    @Test("a <real> longer than 1024 characters is refused")
    func longReal() throws {
        let long = "1." + String(repeating: "0", count: 1020)
        #expect(try decodeElement("<real>\(long)</real>") == .double(1))
        expectError(Self.document("<real>\(long)000</real>"), .invalidNumber, mentioning: "1024")
    }

    @Test(
        "dates: ISO 8601 UTC, with optional fractional seconds",
        arguments: [
            ("2024-01-02T03:04:05Z", 725_857_445.0),
            ("2024-01-02T03:04:05.25Z", 725_857_445.25),
            ("2001-01-01T00:00:00Z", 0),
            ("2001-01-01T00:00:00.000Z", 0),
            ("1970-01-01T00:00:00Z", -978_307_200),
            ("1600-02-29T23:59:59Z", -12_649_219_201),
            ("2000-12-31T23:59:59.5Z", -0.5),
            (" 2024-01-02T03:04:05Z\n", 725_857_445),
            ("0001-01-01T00:00:00Z", -63_113_904_000),
            ("-0001-01-01T00:00:00Z", -63_177_062_400),
            ("12345-06-07T08:09:10Z", 326_438_669_350),
        ])
    func dates(text: String, seconds: Double) throws {
        #expect(try decodeElement("<date>\(text)</date>") == .date(Date(timeIntervalSinceReferenceDate: seconds)))
    }

    @Test(
        "malformed dates are invalid dates",
        arguments: [
            "", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02 03:04:05Z", "2024-1-02T03:04:05Z",
            "24-01-02T03:04:05Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+00:00", "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
            "2024-01-02T24:00:00Z", "2024-01-02T03:60:00Z", "2024-01-02T03:04:60Z", "2024-01-02T03:04:05Zjunk",
            "1234567-01-01T00:00:00Z",
        ])
    func badDates(text: String) {
        expectError(Self.document("<date>\(text)</date>"), .invalidDate, mentioning: "invalid <date>")
    }

    @Test("data is base64 with whitespace anywhere")
    func data() throws {
        #expect(try decodeElement("<data>AQID</data>") == .data(Data([1, 2, 3])))
        #expect(try decodeElement("<data>\n\t\tAQ ID\r\n BA==\n\t</data>") == .data(Data([1, 2, 3, 4])))
        #expect(try decodeElement("<data>AQIDBAU=</data>") == .data(Data([1, 2, 3, 4, 5])))
        #expect(try decodeElement("<data>/+/+</data>") == .data(Data([0xFF, 0xEF, 0xFE])))
        #expect(try decodeElement("<data>AA = =</data>") == .data(Data([0])))
    }

    @Test(
        "invalid base64 is invalid data, placed at the offending byte",
        arguments: [
            ("AB$C", "'$' is not a base64 digit", 2),
            ("ABC", "ends inside a group", 3),
            ("A", "ends inside a group", 1),
            ("AB=C", "digits after the '=' padding", 3),
            ("A===", "'=' padding where a base64 digit belongs", 1),
            ("=AAA", "'=' padding where a base64 digit belongs", 0),
            ("AA==AA==", "digits after the '=' padding", 4),
            ("AAA==", "'=' padding where a base64 digit belongs", 4),
            ("AA\u{E9}A", "byte 0xC3 is not a base64 digit", 2),
        ])
    func badData(text: String, words: String, index: Int) {
        let document = Self.document("<data>\(text)</data>")
        let contentStart = Array(document.utf8).firstRange(of: Array("<data>".utf8))!.upperBound
        let error = expectError(document, .invalidData, mentioning: words)
        #expect(error?.offset == contentStart + index)
    }

    @Test("strings: the five entities, character references, CDATA, comments; whitespace kept")
    func strings() throws {
        #expect(try decodeElement("<string>&lt;&gt;&amp;&quot;&apos;</string>") == "<>&\"'")
        #expect(try decodeElement("<string>caf&#233; caf&#xE9; caf&#XE9; &#x1F600; &#65;</string>") == "café café café 😀 A")
        #expect(try decodeElement("<string><![CDATA[<not> &a; tag]]> after</string>") == "<not> &a; tag after")
        #expect(try decodeElement("<string>a<!-- comment -->b<?pi x?>c</string>") == "abc")
        #expect(try decodeElement("<string>  two  \n\t lines \r\n </string>") == "  two  \n\t lines \r\n ")
        #expect(try decodeElement("<string>raw ünïcödé 🎉 > ]]&gt;</string>") == "raw ünïcödé 🎉 > ]]>")
        #expect(try decodeElement("<string>&#0;&#x7;</string>") == "\u{0}\u{7}")
        #expect(try decodeElement("<string>a\u{0}b</string>") == "a\u{0}b")
        #expect(try decodeElement("<dict><key>k&amp;<![CDATA[]]></key><string>v</string></dict>") == ["k&": "v"])
    }

    @Test(
        "references that name no entity or no scalar are invalid entities",
        arguments: ["&foo;", "&lol9;", "&#xD800;", "&#x110000;", "&#1114112;", "&#;", "&#x;", "&#12a;", "a & b", "&amp", "&LT;"])
    func badReferences(text: String) {
        expectError(Self.document("<string>\(text)</string>"), .invalidEntity)
    }

    @Test("the prolog is optional and may hold comments and processing instructions")
    func prolog() throws {
        #expect(try decode("<plist><string>x</string></plist>") == "x")
        #expect(try decode("<string>bare root</string>") == "bare root")
        #expect(try decode("<dict><key>a</key><integer>1</integer></dict>") == ["a": 1])
        let busy = """
            \u{FEFF}<?xml version='1.0' encoding='utf-8' standalone="yes"?>
            <!-- before -->
            <?editor setting="1"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <!-- after the doctype -->
            <plist version="1.0" xmlns:x='urn:x'>
              <!-- inside -->
              <array><?pi?><integer>1</integer><!-- c --></array>
            </plist>
            <!-- trailing comment --> <?trailing pi?>

            """
        #expect(try decode(busy) == [1])
        #expect(try decode("<?xml version=\"1.0\" encoding=\"US-ASCII\"?><plist><true/></plist>") == true)
    }

    @Test("a DOCTYPE is skipped, and an internal subset without entities is allowed")
    func doctype() throws {
        let subset = """
            <?xml version="1.0"?>
            <!DOCTYPE plist SYSTEM "file:///nonexistent.dtd" [
              <!ELEMENT plist ANY>
              <!ATTLIST plist version CDATA "1.0">
              <!-- <!ENTITY commented "out"> -->
              <?pi in subset?>
            ]>
            <plist><string>fine</string></plist>
            """
        #expect(try decode(subset) == "fine")
        // An "]" or ">" inside a quoted literal does not end the declaration.
        #expect(try decode("<!DOCTYPE plist PUBLIC \"a]>b\" 'c>'><plist><false/></plist>") == false)
    }

    // MARK: Hostile input

    @Test("a DOCTYPE declaring entities (billion laughs) is refused before any expansion")
    func billionLaughs() {
        var lines = ["<?xml version=\"1.0\"?>", "<!DOCTYPE lolz [", "  <!ENTITY lol \"lol\">"]
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            lines.append("  <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">")
        }
        lines += ["]>", "<plist><string>&lol9;</string></plist>"]
        let text = lines.joined(separator: "\n")
        let error = expectError(text, .entityDeclaration, mentioning: "billion laughs")
        #expect(error?.offset == Array(text.utf8).firstRange(of: Array("<!ENTITY".utf8))?.lowerBound)
        #expect(error?.reason.contains("at line 3, column 3") == true)
        // External entities and parameter entities are declarations too.
        expectError(
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><plist><string>&xxe;</string></plist>",
            .entityDeclaration)
        expectError("<!DOCTYPE plist [<!ENTITY % p \"x\">]><plist/>", .entityDeclaration)
        // Without a declaration, a reference is simply undefined.
        expectError("<plist><string>&xxe;</string></plist>", .invalidEntity, mentioning: "&xxe;")
    }

    @Test("UTF-16 and UTF-32, with or without a byte order mark, are refused with a clear error")
    func encodings() {
        let utf16LE: [UInt8] = [0xFF, 0xFE] + Array("<plist/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE: [UInt8] = [0xFE, 0xFF] + Array("<plist/>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        expectError(utf16LE, .unsupportedEncoding, mentioning: "UTF-16 byte order mark (FF FE)")
        expectError(utf16BE, .unsupportedEncoding, mentioning: "UTF-16 byte order mark (FE FF)")
        expectError(Array(utf16LE.dropFirst(2)), .unsupportedEncoding, mentioning: "NUL")
        expectError(Array(utf16BE.dropFirst(2)), .unsupportedEncoding, mentioning: "NUL")
        expectError([0, 0, 0xFE, 0xFF, 0, 0, 0, 0x3C], .unsupportedEncoding, mentioning: "UTF-32")
        expectError("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist/>", .unsupportedEncoding, mentioning: "ISO-8859-1")
        expectError("<?xml version=\"1.0\" encoding = 'UTF-16'?><plist/>", .unsupportedEncoding)
    }

    @Test("bytes that are not UTF-8 are invalid strings, placed at the bad byte")
    func invalidUTF8() {
        let prefix = Array("<plist><string>ab".utf8)
        let cases: [[UInt8]] = [[0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
        for bad in cases {
            let bytes = prefix + bad + Array("</string></plist>".utf8)
            let error = expectError(bytes, .invalidString, mentioning: "not valid UTF-8")
            #expect(error?.offset == prefix.count, "\(bad)")
        }
    }

    @Test("structural errors are typed and name where they are")
    func structure() {
        expectError("", .truncated, mentioning: "empty")
        expectError("   \n", .truncated, mentioning: "before its root element")
        expectError("<plist><dict", .truncated, mentioning: "unterminated tag")
        expectError("<plist><dict><key>a</key><string>b", .truncated, mentioning: "<string> opened at line 1, column 26 is not closed")
        expectError("<plist><array><string>a</string>", .truncated, mentioning: "<array> opened at line 1, column 8 is not closed")
        expectError(
            "<plist>\n<array>\n\t<string>a</string>\n</dict>\n</plist>", .syntax,
            mentioning: "mismatched end tag </dict>: <array> opened at line 2, column 1 is still open at line 4, column 1")
        expectError("<plist><string>a</strong></plist>", .syntax, mentioning: "mismatched end tag </strong>")
        expectError("<plist><dict><key>a</key></dict></plist>", .syntax, mentioning: "key \"a\" has no value")
        expectError("<plist><dict><key>a</key><key>b</key></dict></plist>", .syntax, mentioning: "followed by another <key>")
        expectError("<plist><dict><string>a</string></dict></plist>", .invalidKey, mentioning: "found <string>")
        expectError("<plist><dict>text</dict></plist>", .syntax, mentioning: "unexpected text 't' in <dict>")
        expectError("<plist><array>1</array></plist>", .syntax, mentioning: "holds only elements")
        expectError("<plist><set/></plist>", .syntax, mentioning: "unknown element <set>")
        expectError("<plist><key>a</key></plist>", .syntax, mentioning: "<key> outside a <dict>")
        expectError("<plist><plist/></plist>", .syntax, mentioning: "<plist> element inside")
        expectError("<plist><string>a<b/></string></plist>", .syntax, mentioning: "unexpected element <b> inside <string>")
        expectError("<plist><true>yes</true></plist>", .syntax, mentioning: "<true> must be empty")
        expectError("<plist></plist>", .syntax, mentioning: "holds no value")
        expectError("<plist/>", .syntax, mentioning: "holds no value")
        expectError("<plist><true/><false/></plist>", .syntax, mentioning: "more than one value")
        expectError("<plist><array><![CDATA[x]]></array></plist>", .syntax, mentioning: "CDATA")
        expectError("<plist><string attr></string></plist>", .syntax, mentioning: "expected '='")
        expectError("<plist><string a=b></string></plist>", .syntax, mentioning: "quoted attribute value")
        expectError("<plist><string/ ></plist>", .syntax, mentioning: "expected '>' after '/'")
        expectError("<plist>< string/></plist>", .syntax, mentioning: "expected a name")
        expectError("<plist><string>a</string ></plist>x", .trailingContent)
        expectError("<plist><!-- unterminated", .truncated, mentioning: "unterminated comment")
        expectError("<plist><string><![CDATA[abc</string></plist>", .truncated, mentioning: "unterminated CDATA")
        expectError("<?xml version=\"1.0\"", .truncated, mentioning: "unterminated processing instruction")
        expectError("<!DOCTYPE plist [ <!ELEMENT a ANY>", .truncated, mentioning: "internal subset")
        expectError("<!DOCTYPE plist", .truncated, mentioning: "unterminated document type declaration")
        expectError("<!DOCTYPE a><!DOCTYPE b><plist/>", .syntax, mentioning: "second document type declaration")
        expectError("hello", .syntax, mentioning: "where the root element was expected")
        expectError(Array("bplist00".utf8) + [0xD0, 0x08], .syntax, mentioning: "binary property list")
    }

    @Test("anything after </plist> but whitespace, comments and PIs is trailing content")
    func garbageAfterRoot() {
        expectError(Self.document("<true/>") + "garbage", .trailingContent, mentioning: "unexpected 'g' after the root element")
        expectError(Self.document("<true/>") + "<plist><true/></plist>", .trailingContent)
        expectError("<string>a</string><string>b</string>", .trailingContent)
        expectError(Self.document("<true/>") + "\u{0}", .trailingContent, mentioning: "U+0000")
    }

    /// A small document holding one of every kind of value, in Apple's layout.
    static let smallDocument: [UInt8] = XMLPropertyListEncoder().encode([
        "name": "Ada & <Lovelace>", "count": 42, "ratio": 0.5, "on": true, "off": false,
        "when": .date(Date(timeIntervalSinceReferenceDate: 1.5)), "blob": .data(Data([1, 2, 3, 4])),
        "list": [1, "two", ["three": 3], [], [:]], "ünï": "çødé",
    ])

    @Test("truncation at every byte of a small document gives a typed error")
    func truncation() throws {
        let bytes = Self.smallDocument
        #expect(throws: Never.self) { try decoder.decode(bytes) }
        var codes: Set<String> = []
        // Only the final newline may go: the document is complete at "</plist>".
        for length in 0..<(bytes.count - 1) {
            do {
                let value = try decoder.decode(Array(bytes.prefix(length)))
                Issue.record("a document cut to \(length) of \(bytes.count) bytes decoded to \(value)")
            } catch {
                codes.insert(error.code.description)
                #expect(error.offset != nil, "\(error) names no offset")
            }
        }
        #expect(codes.contains("truncated"))
        // Cutting inside a multi-byte character leaves invalid UTF-8.
        #expect(codes.contains("invalidString"))
    }

    @Test("random byte mutations of a document never trap; each decodes or gives a typed error")
    func mutations() {
        var generator = SplitMix64(seed: 0x0C0F_FEE0)
        let interesting = Array("<>/&;#x=\"'![]?-0aZ \n".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        var failures = 0
        for _ in 0..<3000 {
            var bytes = Self.smallDocument
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting[Int(generator.next() % UInt64(interesting.count))], at: index)
                }
            }
            do {
                _ = try decoder.decode(bytes)
            } catch {
                failures += 1
                #expect(error.offset != nil, "\(error)")
            }
        }
        #expect(failures > 1000, "mutations must hit the checks")
    }

    @Test("100,000 nested containers fail at the depth limit with a typed error, without exhausting the stack")
    func deepNesting() {
        let arrays = "<plist>" + String(repeating: "<array>", count: 100_000)
        expectError(arrays, .tooDeep, mentioning: "deeper than 64")
        let dicts = "<plist>" + String(repeating: "<dict><key>k</key>", count: 100_000)
        expectError(dicts, .tooDeep)
    }

    @Test("64 nested containers decode and 65 do not; a tighter depth limit is honoured")
    func depthLimit() throws {
        func nested(_ depth: Int) -> String {
            "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        }
        #expect(throws: Never.self) { try decode(nested(64)) }
        expectError(nested(65), .tooDeep, mentioning: "column \(7 + 64 * 7 + 1)")
        let shallow = XMLPropertyListDecoder(limits: PropertyListLimits(depth: 2))
        #expect(throws: Never.self) { try shallow.decode(Array(nested(2).utf8)) }
        expectError(nested(3), .tooDeep, decoder: shallow)
    }

    @Test("values and keys count against the expanded-object limit")
    func valueLimit() throws {
        let tight = XMLPropertyListDecoder(limits: PropertyListLimits(expandedObjectCount: 10))
        let nine = "<array>" + String(repeating: "<true/>", count: 9) + "</array>"
        #expect(throws: Never.self) { try tight.decode(Array(nine.utf8)) }
        expectError("<array>" + String(repeating: "<true/>", count: 10) + "</array>", .tooManyExpandedObjects, decoder: tight)
        let keys = "<dict>" + String(repeating: "<key>k</key><true/>", count: 4) + "</dict>"
        #expect(throws: Never.self) { try tight.decode(Array(keys.utf8)) }
        let moreKeys = "<dict>" + (0..<5).map { "<key>k\($0)</key><true/>" }.joined() + "</dict>"
        expectError(moreKeys, .tooManyExpandedObjects, decoder: tight)
        let many = "<array>" + String(repeating: "<true/>", count: 100_000) + "</array>"
        expectError(many, .tooManyExpandedObjects, mentioning: "100000")
    }

    @Test("documents longer than 16 MiB are refused before parsing")
    func inputCap() {
        #expect(XMLPropertyListDecoder.maximumInputLength == 16 * 1024 * 1024)
        let limit = XMLPropertyListDecoder.maximumInputLength
        let padded = Array("<string>".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: limit - 17) + Array("</string>".utf8)
        #expect(padded.count == limit)
        #expect((try? decoder.decode(padded))?.stringValue?.utf8.count == limit - 17)
        expectError(padded + [0x20], .inputTooLarge, mentioning: "\(limit + 1) bytes")
    }

    // MARK: Encoding

    @Test("the encoder writes Apple's layout exactly")
    func layout() {
        let value: PropertyListValue = [
            "array": [1, "two", []], "big": .integer(PropertyListInteger(UInt64.max)), "bool": true,
            "data": .data(Data([1, 2, 3])), "date": .date(Date(timeIntervalSinceReferenceDate: 725_857_445)),
            "dict": ["nested": [:]], "empty": "", "false": false, "float": .float(0.1), "int": -42, "real": 0.5,
            "string": "a < b & c > d",
        ]
        let lines = [
            "<dict>",
            "\t<key>array</key>", "\t<array>", "\t\t<integer>1</integer>", "\t\t<string>two</string>", "\t\t<array/>", "\t</array>",
            "\t<key>big</key>", "\t<integer>18446744073709551615</integer>",
            "\t<key>bool</key>", "\t<true/>",
            "\t<key>data</key>", "\t<data>", "\tAQID", "\t</data>",
            "\t<key>date</key>", "\t<date>2024-01-02T03:04:05Z</date>",
            "\t<key>dict</key>", "\t<dict>", "\t\t<key>nested</key>", "\t\t<dict/>", "\t</dict>",
            "\t<key>empty</key>", "\t<string></string>",
            "\t<key>false</key>", "\t<false/>",
            "\t<key>float</key>", "\t<real>0.1</real>",
            "\t<key>int</key>", "\t<integer>-42</integer>",
            "\t<key>real</key>", "\t<real>0.5</real>",
            "\t<key>string</key>", "\t<string>a &lt; b &amp; c &gt; d</string>",
            "</dict>",
        ]
        #expect(String(decoding: encoder.encode(value), as: UTF8.self) == Self.document(lines.joined(separator: "\n")))
        #expect(String(decoding: encoder.encode("top"), as: UTF8.self) == Self.document("<string>top</string>"))
        #expect(String(decoding: encoder.encode(.data(Data())), as: UTF8.self) == Self.document("<data>\n</data>"))
    }

    @Test("data is written in base64 lines of 76 characters less 8 per level, as Apple writes it")
    func dataLines() throws {
        let bytes = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let base64 = Array(bytes.base64EncodedString())
        for depth in [0, 1, 2, 7, 8, 9, 12] {
            var value = PropertyListValue.data(bytes)
            for _ in 0..<depth { value = [value] }
            let text = String(decoding: encoder.encode(value), as: UTF8.self)
            let tabs = min(depth, 8)
            let width = 76 - 8 * tabs
            let prefix = String(repeating: "\t", count: tabs)
            let expectedLines = stride(from: 0, to: base64.count, by: width).map {
                prefix + String(base64[$0..<min($0 + width, base64.count)])
            }
            let indentation = String(repeating: "\t", count: depth)
            let block = indentation + "<data>\n" + expectedLines.joined(separator: "\n") + "\n" + indentation + "</data>\n"
            #expect(text.contains(block), "depth \(depth):\n\(text)")
            #expect(try decoder.decode(Array(text.utf8)) == value)
        }
    }

    @Test(
        "reals are written in their shortest digits with Apple's special spellings",
        arguments: [
            (PropertyListValue.double(0.1), "0.1"),
            (.double(2), "2"),
            (.double(-0.0), "-0"),
            (.double(0), "0"),
            (.double(1e20), "1e+20"),
            (.double(123_456.789), "123456.789"),
            (.double(.pi), "3.141592653589793"),
            (.double(.infinity), "+infinity"),
            (.double(-.infinity), "-infinity"),
            (.double(.nan), "nan"),
            (.float(0.1), "0.1"),
            (.float(12.34), "12.34"),
            (.float(3), "3"),
            (.float(-.infinity), "-infinity"),
            (.float(.greatestFiniteMagnitude), "3.4028235e+38"),
        ])
    func realSpelling(value: PropertyListValue, expected: String) {
        #expect(String(decoding: encoder.encode(value), as: UTF8.self) == Self.document("<real>\(expected)</real>"))
    }

    @Test("dates are written to the second, with fractional seconds only when there are some")
    func dateSpelling() {
        let cases: [(Double, String)] = [
            (725_857_445, "2024-01-02T03:04:05Z"),
            (725_857_445.25, "2024-01-02T03:04:05.25Z"),
            (725_857_445.1, "2024-01-02T03:04:05.10000002384185791Z"),
            (-0.5, "2000-12-31T23:59:59.5Z"),
            (-0.1, "2000-12-31T23:59:59.9Z"),
            (-63_113_904_000, "0001-01-01T00:00:00Z"),
            (-63_177_062_400, "-0001-01-01T00:00:00Z"),
            (.nan, "2001-01-01T00:00:00Z"),
        ]
        for (seconds, text) in cases {
            let encoded = String(decoding: encoder.encode(.date(Date(timeIntervalSinceReferenceDate: seconds))), as: UTF8.self)
            #expect(encoded == Self.document("<date>\(text)</date>"), "\(seconds)")
        }
    }

    @Test("dates round-trip bit for bit, fractions, negative times and extremes included")
    func dateRoundTrip() throws {
        var seconds: [Double] = [
            0, 0.25, 0.1, -0.1, -0.5, -1, -1.5, -0.9999999999999999, -.leastNonzeroMagnitude, .leastNonzeroMagnitude, -1e-300, 1e-7,
            725_857_445.123, -12_649_219_201.999, 6_294_112_245.25, -3_187_295_999.5, 1e13 + 0.5, .pi, -.pi,
            123_456_789.123_456_789, -2e-30, 29_999_999_999_999.99, -29_999_999_999_999.99,
        ]
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            // Uniform over ±10^11 s (±3,000 years), with full sub-second bits.
            let unit = Double(generator.next() >> 11) / Double(1 << 53)
            seconds.append((unit - 0.5) * 2e11)
        }
        for value in seconds {
            let date = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: value))
            let decoded = try decoder.decode(encoder.encode(date))
            #expect(isIdentical(decoded, date), "\(value) came back as \(decoded)")
        }
    }

    @Test("dates beyond the text range are written at its ends")
    func dateClamping() throws {
        let far = try decoder.decode(encoder.encode(.date(Date(timeIntervalSinceReferenceDate: .infinity))))
        #expect(far == .date(Date(timeIntervalSinceReferenceDate: 30_000_000_000_000)))
        let past = try decoder.decode(encoder.encode(.date(Date(timeIntervalSinceReferenceDate: -1e300))))
        #expect(past == .date(Date(timeIntervalSinceReferenceDate: -30_000_000_000_000)))
    }

    @Test("strings keep every character: only < > & are escaped, the rest written raw")
    func stringEscaping() throws {
        let string = "<tag attr=\"v\">&amp; ]]> 'q' \u{0}\u{1}\r\n\t café 😀\u{301}"
        let text = String(decoding: encoder.encode(.string(string)), as: UTF8.self)
        #expect(text == Self.document("<string>&lt;tag attr=\"v\"&gt;&amp;amp; ]]&gt; 'q' \u{0}\u{1}\r\n\t café 😀\u{301}</string>"))
        let decoded = try decoder.decode(Array(text.utf8))
        #expect(decoded.stringValue?.unicodeScalars.elementsEqual(string.unicodeScalars) == true)
    }

    @Test("every value round-trips; a float comes back as the double of its shortest digits", arguments: InteropCases.cases)
    func roundTrip(_ testCase: InteropCases.Case) throws {
        let decoded = try decoder.decode(encoder.encode(testCase.value))
        #expect(isIdentical(decoded, Self.floatsAsDoubles(testCase.value)), "\(testCase.name)")
    }

    @Test("random reals round-trip bit for bit; floats keep their value through their digits")
    func realRoundTrip() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<3000 {
            let double = Double(bitPattern: generator.next())
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            let decoded = try decoder.decode(encoder.encode([.double(double), .float(float)]))
            guard case .array(let elements) = decoded, elements.count == 2,
                case .double(let back) = elements[0], case .double(let floatBack) = elements[1]
            else {
                Issue.record("decoded to \(decoded)")
                continue
            }
            #expect(double.isNaN ? back.isNaN : back.bitPattern == double.bitPattern, "\(double)")
            #expect(float.isNaN ? floatBack.isNaN : Float(floatBack).bitPattern == float.bitPattern, "\(float)")
        }
    }

    /// What `value` decodes to after XML: `.float`s become the double of their shortest digits.
    static func floatsAsDoubles(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .float(let float):
            if float.isNaN { return .double(.nan) }
            if float.isInfinite { return .double(float < 0 ? -.infinity : .infinity) }
            return .double(Double(float.description)!)
        case .array(let elements): return .array(elements.map(floatsAsDoubles))
        case .dictionary(let entries): return .dictionary(entries.mapValues(floatsAsDoubles))
        default: return value
        }
    }

    // MARK: Interop with plistlib

    @Test("plistlib reads every XML document we write to the values it expects")
    func theirsReadsOurs() throws {
        let directory = try TemporaryDirectory()
        for (name, value) in XMLInteropCases.all {
            try Data(encoder.encode(value)).write(to: directory.file(name + ".xml"))
        }
        let result = try run("python3", [script, "check-xml", directory.url.path])
        #expect(result.status == 0, "plistlib disagreed:\n\(result.output)")
        #expect(result.output.contains("checked \(XMLInteropCases.all.count) cases, 0 mismatched"), "\(result.output)")
    }

    @Test("we read every XML document plistlib writes to the values we expect, and write the same bytes")
    func oursReadsTheirs() throws {
        let directory = try TemporaryDirectory()
        let result = try run("python3", [script, "write-xml", directory.url.path])
        try #require(result.status == 0, "plistlib failed to write: \(result.output)")
        let expected = XMLInteropCases.writtenByPlistlib
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(written.count == expected.count, "plistlib wrote \(written.count) files, expected \(expected.count)")
        for (name, value) in expected {
            let data = try Data(contentsOf: directory.file(name + ".xml"))
            let decoded = try decoder.decode(data)
            #expect(isIdentical(decoded, value), "\(name): decoded \(String(describing: decoded).prefix(200))")
            // plistlib lays XML out as Apple does; only its spelling of some reals differs.
            if !XMLInteropCases.differentRealSpelling.contains(name) {
                #expect(encoder.encode(value) == [UInt8](data), "\(name): our bytes differ from plistlib's")
            }
        }
    }
}
