import Foundation
import PropertyList
import TestSupport
import Testing

@Suite("Binary encoder")
struct EncoderTests {
    let encoder = BinaryPropertyListEncoder()
    let decoder = BinaryPropertyListDecoder()

    /// The trailer's fields of an encoded file.
    func trailer(_ bytes: [UInt8]) -> (offsetWidth: Int, referenceWidth: Int, objects: Int) {
        let t = bytes.count - 32
        let count = bytes[(t + 8)..<(t + 16)].reduce(0) { $0 << 8 | Int($1) }
        return (Int(bytes[t + 6]), Int(bytes[t + 7]), count)
    }

    @Test("every value round-trips bit for bit", arguments: InteropCases.all.sorted { $0.key < $1.key })
    func roundTrip(name: String, value: PropertyListValue) throws {
        let decoded = try decoder.decode(try encoder.encode(value))
        #expect(isIdentical(decoded, value), "\(name)")
    }

    @Test(
        "integers take the fewest bytes the format allows",
        arguments: [
            (PropertyListInteger(0), [0x10, 0x00]),
            (PropertyListInteger(255), [0x10, 0xFF]),
            (PropertyListInteger(256), [0x11, 0x01, 0x00]),
            (PropertyListInteger(65_535), [0x11, 0xFF, 0xFF]),
            (PropertyListInteger(65_536), [0x12, 0x00, 0x01, 0x00, 0x00]),
            (PropertyListInteger(Int64(UInt32.max)), [0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
            (PropertyListInteger(Int64(1) << 32), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
            (PropertyListInteger(-1), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (PropertyListInteger(UInt64.max), [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)),
        ] as [(PropertyListInteger, [UInt8])])
    func integerWidths(value: PropertyListInteger, expected: [UInt8]) throws {
        let bytes = try encoder.encode(.integer(value))
        #expect(Array(bytes[8..<(8 + expected.count)]) == expected)
        #expect(bytes.count == 8 + expected.count + 1 + 32, "one object, a one-byte offset table, the trailer")
    }

    @Test("identical strings and numbers are written once and shared")
    func sharing() throws {
        let value: PropertyListValue = ["same", "same", 7, 7, ["same", 7, 7.5, 7.5], ["k": "same", "same": 7]]
        let (_, _, objects) = trailer(try encoder.encode(value))
        // top array, inner array, inner dict, "same", 7, 7.5, "k"
        #expect(objects == 7)
    }

    @Test("0.0 and -0.0, and canonically equal but differently spelled strings, stay distinct")
    func sharingIsExact() throws {
        let value: PropertyListValue = [.double(0), .double(-0.0), "\u{E9}", "e\u{301}"]
        let bytes = try encoder.encode(value)
        #expect(trailer(bytes).objects == 5)
        let decoded = try #require(try decoder.decode(bytes).arrayValue)
        #expect(isIdentical(decoded[1], .double(-0.0)) && isIdentical(decoded[0], .double(0)))
        #expect(Array(decoded[3].stringValue!.unicodeScalars) == ["e", "\u{301}"])
    }

    @Test("references and offsets widen only when they must")
    func referenceWidths() throws {
        let small = trailer(try encoder.encode(.array((0..<200).map { .integer($0) })))
        #expect(small.referenceWidth == 1)
        #expect(small.offsetWidth == 2)
        let large = trailer(try encoder.encode(.array((0..<300).map { .integer($0) })))
        #expect(large.referenceWidth == 2)
        let longCount = try encoder.encode(.string(String(repeating: "a", count: 15)))
        #expect(Array(longCount[8..<11]) == [0x5F, 0x10, 15], "a count of 15 or more follows as an integer")
    }

    @Test("equal values encode to equal bytes whatever the dictionary's insertion order")
    func deterministic() throws {
        var forward: [String: PropertyListValue] = [:]
        var backward: [String: PropertyListValue] = [:]
        for i in 0..<500 { forward["k\(i)"] = .integer(i) }
        for i in (0..<500).reversed() { backward["k\(i)"] = .integer(i) }
        #expect(try encoder.encode(.dictionary(forward)) == encoder.encode(.dictionary(backward)))
    }

    @Test("the encoder refuses what the decoder would refuse to read back")
    func encoderLimits() throws {
        #expect(throws: Never.self) { try encoder.encode(InteropCases.nested(63)) }
        let tooDeep = #expect(throws: PropertyListError.self) { try encoder.encode(InteropCases.nested(65)) }
        #expect(tooDeep?.code == .tooDeep)
        let tooMany = #expect(throws: PropertyListError.self) {
            try encoder.encode(.array((0..<70_000).map { .integer($0) }))
        }
        #expect(tooMany?.code == .tooManyObjects)
        let tooExpanded = #expect(throws: PropertyListError.self) {
            try encoder.encode(.array(Array(repeating: "x", count: 100_000)))
        }
        #expect(tooExpanded?.code == .tooManyExpandedObjects)
    }
}
