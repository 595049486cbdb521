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

    @Test("every value round-trips bit for bit", arguments: InteropCases.cases)
    func roundTrip(_ testCase: InteropCases.Case) throws {
        let decoded = try decoder.decode(try encoder.encode(testCase.value))
        #expect(isIdentical(decoded, testCase.value), "\(testCase.name)")
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

    @Test("1,000 equal small arrays, or dictionaries, are written once and shared")
    func sharedContainers() throws {
        // Built apart, element by element: sharing goes by value, not by any identity.
        let arrays = PropertyListValue.array((0..<1_000).map { _ in [1, "a", true] })
        let arrayBytes = try encoder.encode(arrays)
        #expect(arrayBytes.count < 2_000, "\(arrayBytes.count) bytes")
        #expect(trailer(arrayBytes).objects == 5, "the top array, one inner array, 1, \"a\", true")
        #expect(isIdentical(try decoder.decode(arrayBytes), arrays))

        let dictionaries = PropertyListValue.array((0..<1_000).map { _ in ["name": "x", "count": 1] })
        let dictionaryBytes = try encoder.encode(dictionaries)
        #expect(dictionaryBytes.count < 2_000, "\(dictionaryBytes.count) bytes")
        #expect(trailer(dictionaryBytes).objects == 6, "the top array, one dictionary, two keys, two values")
        #expect(isIdentical(try decoder.decode(dictionaryBytes), dictionaries))
    }

    @Test("equal containers nested in equal containers are shared at every level")
    func sharedNestedContainers() throws {
        let leaf: PropertyListValue = ["x"]
        let value: PropertyListValue = [
            leaf, [leaf], [[leaf]], [leaf, [leaf]], ["k": [leaf]], ["k": [leaf]], [leaf, [leaf]], [[leaf]],
        ]
        let bytes = try encoder.encode(value)
        // top, ["x"], "x", [leaf], [[leaf]], [leaf, [leaf]], ["k": [leaf]], "k"
        #expect(trailer(bytes).objects == 8)
        #expect(isIdentical(try decoder.decode(bytes), value))
    }

    /// The ordinal `n` as von Neumann built it: the array of all smaller ordinals, so each
    /// one holds every one before it, and its expanded tree has 2^n values.
    static func ordinal(_ n: Int) -> PropertyListValue {
        var smaller: [PropertyListValue] = []
        for _ in 0..<n { smaller.append(.array(smaller)) }
        return .array(smaller)
    }

    @Test("a container holding containers equal to its own parts is written once per distinct value")
    func selfSimilarContainers() throws {
        let value = Self.ordinal(16)
        let bytes = try encoder.encode(value)
        #expect(trailer(bytes).objects == 17, "the ordinals 0 through 16")
        #expect(bytes.count < 1_000, "\(bytes.count) bytes")
        let decoded = try decoder.decode(bytes)
        #expect(isIdentical(decoded, value))
        #expect(try encoder.encode(decoded) == bytes, "the same value gives the same bytes")
    }

    @Test("containers equal as values but not identical stay apart")
    func distinctContainers() throws {
        let value: PropertyListValue = [
            [1], [.double(1)], [.float(1)], [true], ["1"], [.data(Data([1]))],
            [], [:], ["a": 1], ["a", 1], [.double(0)], [.double(-0.0)], ["\u{E9}"], ["e\u{301}"],
        ]
        let bytes = try encoder.encode(value)
        // The top array, 14 containers, and the scalars 1, 1.0, Float 1, true, "1", data,
        // "a", 0.0, -0.0, "\u{E9}", "e\u{301}".
        #expect(trailer(bytes).objects == 1 + 14 + 11)
        let decoded = try #require(try decoder.decode(bytes).arrayValue)
        #expect(isIdentical(.array(decoded), value))
    }

    @Test("repeated containers encode to the same bytes whatever the dictionaries' insertion order")
    func sharedDeterministic() throws {
        var forward: [String: PropertyListValue] = [:]
        var backward: [String: PropertyListValue] = [:]
        for i in 0..<20 { forward["k\(i)"] = [.integer(i)] }
        for i in (0..<20).reversed() { backward["k\(i)"] = [.integer(i)] }
        let first = try encoder.encode(.array([.dictionary(forward), .dictionary(backward), .dictionary(forward)]))
        let second = try encoder.encode(.array([.dictionary(backward), .dictionary(forward), .dictionary(backward)]))
        #expect(first == second)
        #expect(trailer(first).objects == 1 + 1 + 20 * 3, "the top array, one dictionary, its keys, arrays and integers")
    }

    @Test("sharing never writes a file the decoder refuses")
    func sharingWithinDecoderLimits() throws {
        // The top array and 33,333 copies of [1, 2]: exactly the 100,000 values a decoder
        // accepts once shared references are expanded.
        let most = PropertyListValue.array(Array(repeating: [1, 2], count: 33_333))
        let bytes = try encoder.encode(most)
        #expect(trailer(bytes).objects == 4)
        #expect(isIdentical(try decoder.decode(bytes), most))
        // One more copy expands past the decoder's limit, so the encoder refuses it though
        // its file would be as small.
        let tooMany = #expect(throws: PropertyListError.self) {
            try encoder.encode(.array(Array(repeating: [1, 2], count: 33_334)))
        }
        #expect(tooMany?.code == .tooManyExpandedObjects)

        // A shared container reused where it reaches the deepest nesting a decoder accepts.
        let shared = InteropCases.nested(2)
        var chain = shared
        for _ in 0..<61 { chain = [chain] }
        let deep: PropertyListValue = [shared, shared, chain, shared]
        #expect(isIdentical(try decoder.decode(try encoder.encode(deep)), deep))
        let tooDeep = #expect(throws: PropertyListError.self) { try encoder.encode([shared, shared, [chain]]) }
        #expect(tooDeep?.code == .tooDeep)

        // As many distinct objects as a file may hold, then a repeated container: it adds
        // no object, so the encoder must not count it against the limit.
        var full: [PropertyListValue] = (0..<65_534).map { .integer($0) }
        full.append([0])
        full.append([0])
        let fullBytes = try encoder.encode(.array(full))
        #expect(trailer(fullBytes).objects == 65_536)
        #expect(isIdentical(try decoder.decode(fullBytes), .array(full)))
        full.append([1])
        let overFull = #expect(throws: PropertyListError.self) { try encoder.encode(.array(full)) }
        #expect(overFull?.code == .tooManyObjects)
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
