import Foundation
import PropertyList
import Testing

/// The one rule that tells the three formats apart, wherever a file or text in any format is read.
@Suite("Format detection")
struct FormatDetectionTests {
    /// A document's first bytes and the format they are in; named for the test log, which
    /// would otherwise print the bytes.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var format: PropertyListFormat
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ format: PropertyListFormat) {
            self.init(name, Array(text.utf8), format)
        }

        init(_ name: String, _ bytes: [UInt8], _ format: PropertyListFormat) {
            self.name = name
            self.bytes = bytes
            self.format = format
        }
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static let cases: [Case] = [
        Case("binary", "bplist00\u{8}", .binary),
        Case("binary magic after a space is not binary", " bplist00", .openStep),
        Case("XML declaration", #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><true/></plist>"#, .xml),
        Case("document type first", #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "x.dtd"><plist/>"#, .xml),
        Case("plist element first", #"<plist version="1.0"><dict/></plist>"#, .xml),
        Case("comment first", "<!-- written by hand --><plist><true/></plist>", .xml),
        Case("white space before XML", "\n\t\r <?xml version=\"1.0\"?>", .xml),
        Case("byte-order mark before XML", byteOrderMark + Array("<?xml version=\"1.0\"?>".utf8), .xml),
        Case("byte-order mark and white space before XML", byteOrderMark + Array("\n  <plist>".utf8), .xml),
        Case("bare dict", "<dict><key>a</key><integer>1</integer></dict>", .xml),
        Case("bare empty dict", "<dict/>", .xml),
        Case("bare integer", "<integer>5</integer>", .xml),
        Case("bare false", "<false/>", .xml),
        Case("bare data", "<data>AAE=</data>", .xml),
        Case("bare date", "<date>2024-01-02T03:04:05Z</date>", .xml),
        Case("bare array", "<array/>", .xml),
        Case("old-style dictionary", "{ a = 1; }", .openStep),
        Case("old-style array", "(1, 2)", .openStep),
        Case("old-style string", #""hello""#, .openStep),
        Case("old-style data of digits", "<0fbd 7788>", .openStep),
        Case("old-style data of letters only", "<deadbeef>", .openStep),
        Case("old-style data in upper case, spaced", "< DEAD BEEF >", .openStep),
        Case("old-style empty data", "<>", .openStep),
        Case("unterminated old-style data", "<abc", .openStep),
        Case("byte-order mark before old-style text", byteOrderMark + Array("{}".utf8), .openStep),
        Case("two byte-order marks", byteOrderMark + byteOrderMark + Array("<plist/>".utf8), .openStep),
        Case("comment before old-style text", "/* <plist> */ { }", .openStep),
        Case("empty", "", .openStep),
        Case("white space only", " \n\t", .openStep),
    ]

    @Test("each format is told by how the bytes begin", arguments: cases)
    func detection(_ testCase: Case) {
        #expect(PropertyListFormat.detect(testCase.bytes) == testCase.format)
        #expect(PropertyListFormat.detect(Data(testCase.bytes)) == testCase.format)
    }

    @Test("a text's UTF-8 view is told as its bytes are")
    func textView() {
        #expect(PropertyListFormat.detect("  <string>x</string>".utf8) == .xml)
        #expect(PropertyListFormat.detect(Substring("x<0f>").dropFirst().utf8) == .openStep)
    }

    @Test("decodingAnyFormat reads what the rule names: a bare XML value, XML after a byte-order mark, old-style data")
    func decodingAnyFormat() throws {
        let bare = try PropertyListValue(decodingAnyFormat: Data("<dict><key>a</key><integer>1</integer></dict>".utf8))
        #expect(bare == .dictionary(["a": .integer(1)]))
        let marked = try PropertyListValue(decodingAnyFormat: Data(Self.byteOrderMark + Array("<plist><string>é</string></plist>".utf8)))
        #expect(marked == .string("é"))
        let data = try PropertyListValue(decodingAnyFormat: Data("<deadbeef>".utf8))
        #expect(data == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        let binary = try BinaryPropertyListEncoder().encode(.array([.bool(true)]))
        #expect(try PropertyListValue(decodingAnyFormat: Data(binary)) == .array([.bool(true)]))
    }
}
