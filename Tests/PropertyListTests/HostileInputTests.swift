import Foundation
import PropertyList
import TestSupport
import Testing

/// Damaged and malicious files: each must give a typed error naming the reason, never
/// trap, hang or allocate without bound. How long each takes is reported by the
/// `hostile input` benchmark, not asserted here (tests assert behaviour only).
@Suite("Hostile input")
struct HostileInputTests {
    let decoder = BinaryPropertyListDecoder()

    /// Decodes `bytes`, requiring a `PropertyListError` with `code` whose text mentions `words`.
    @discardableResult
    func expectError(
        _ bytes: [UInt8], _ code: PropertyListError.Code, mentioning words: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        expectThrows(code, code: \.code, mentioning: words, sourceLocation: sourceLocation) {
            () throws(PropertyListError) in try decoder.decode(bytes)
        }
    }

    /// A small file holding one of most kinds of object.
    static let smallFile: [UInt8] = try! BinaryPropertyListEncoder().encode([
        "name": "Ada", "count": 42, "ratio": 0.5, "on": true,
        "when": .date(Date(timeIntervalSinceReferenceDate: 1)), "blob": .data(Data([1, 2, 3])),
        "list": [1, "two", ["three": 3]], "ünï": "çødé",
    ])

    @Test("truncation at every byte offset gives a typed error")
    func truncation() {
        var codes: Set<String> = []
        for length in 0..<Self.smallFile.count {
            do {
                _ = try decoder.decode(Array(Self.smallFile.prefix(length)))
                Issue.record("a file cut to \(length) of \(Self.smallFile.count) bytes decoded")
            } catch {
                codes.insert(error.code.description)
                #expect(error.offset != nil, "\(error) names no offset")
            }
        }
        #expect(codes.contains("truncated"))
        #expect(codes.contains("invalidTrailer"), "a cut file's last 32 bytes are read as a trailer and must be caught")
    }

    @Test("empty input and bad magic")
    func magic() {
        expectError([], .truncated, mentioning: "empty")
        expectError(Array("bplist".utf8), .truncated, mentioning: "header")
        var wrong = Self.smallFile
        wrong[0] = UInt8(ascii: "x")
        expectError(wrong, .badMagic, mentioning: "bplist")
        var version = Self.smallFile
        version[7] = UInt8(ascii: "1")
        expectError(version, .badMagic, mentioning: "\"01\"")
        expectError(Array("<?xml version=\"1.0\"?><plist></plist>                 ".utf8), .badMagic)
    }

    /// The small file with one trailer byte range replaced.
    func withTrailer(at field: Int, _ bytes: [UInt8]) -> [UInt8] {
        var file = Self.smallFile
        let start = file.count - 32 + field
        file.replaceSubrange(start..<(start + bytes.count), with: bytes)
        return file
    }

    @Test("trailer widths out of range", arguments: [0, 9, 255])
    func trailerWidths(width: Int) {
        expectError(withTrailer(at: 6, [UInt8(width)]), .invalidTrailer, mentioning: "offset table entry width \(width)")
        expectError(withTrailer(at: 7, [UInt8(width)]), .invalidTrailer, mentioning: "reference width \(width)")
    }

    @Test("an offset width the writer did not use (3) is caught by the bounds checks")
    func inconsistentOffsetWidth() throws {
        // 3 is a legal width in the format (CoreFoundation reads 1...8), so the trailer
        // alone is not wrong; the table then no longer fits or its entries point nowhere.
        let error = expectError(withTrailer(at: 6, [3]), .invalidTrailer)
        #expect(error?.description.contains("runs past the trailer") == true)
        // And a file genuinely written with 3-byte offsets decodes.
        var raw = RawPropertyList(objects: [arrayObject([1]), asciiObject("ok")])
        raw.offsetWidth = 3
        #expect(try decoder.decode(raw.bytes) == ["ok"])
    }

    @Test("object count of 0 and of 2^40, top object out of range")
    func objectCounts() {
        expectError(withTrailer(at: 8, bigEndian(0, width: 8)), .invalidTrailer, mentioning: "0 objects")
        expectError(withTrailer(at: 8, bigEndian(1 << 40, width: 8)), .tooManyObjects, mentioning: "1099511627776")
        let count = UInt64(Self.smallFile[(Self.smallFile.count - 24)..<(Self.smallFile.count - 16)].reduce(0) { $0 << 8 | Int($1) })
        expectError(withTrailer(at: 16, bigEndian(count, width: 8)), .invalidTrailer, mentioning: "top object \(count)")
        expectError(withTrailer(at: 16, bigEndian(UInt64.max, width: 8)), .invalidTrailer, mentioning: "top object")
        // 300 objects cannot be told apart by 1-byte references.
        var raw = RawPropertyList(objects: [[0x09]])
        raw.objectCount = 300
        raw.offsets = Array(repeating: 8, count: 300)
        raw.offsetWidth = 2
        expectError(raw.bytes, .invalidTrailer, mentioning: "1-byte references")
    }

    @Test("offset table at 0, inside the header and past the end")
    func offsetTablePlacement() {
        expectError(withTrailer(at: 24, bigEndian(0, width: 8)), .invalidTrailer, mentioning: "no room for objects")
        expectError(withTrailer(at: 24, bigEndian(5, width: 8)), .invalidTrailer)
        expectError(withTrailer(at: 24, bigEndian(UInt64(Self.smallFile.count + 100), width: 8)), .invalidTrailer, mentioning: "runs past the trailer")
        expectError(withTrailer(at: 24, bigEndian(UInt64.max, width: 8)), .invalidTrailer)
    }

    @Test("offset-table entries past the end, into the trailer, into the header")
    func offsetEntries() throws {
        var raw = RawPropertyList(objects: [arrayObject([1, 1]), asciiObject("x")])
        let good = raw.bytes
        #expect(try decoder.decode(good) == ["x", "x"])
        raw.offsetWidth = 2
        raw.offsets = [8, 5_000]
        expectError(raw.bytes, .invalidOffset, mentioning: "offset table entry 1 points to byte 5000, past the end of the file")
        raw.offsets = [8, UInt64(good.count - 10)]
        expectError(raw.bytes, .invalidOffset, mentioning: "into the offset table or trailer")
        raw.offsets = [8, 2]
        expectError(raw.bytes, .invalidOffset, mentioning: "inside the header")
        raw.offsets = [UInt64.max >> 8, 11]
        raw.offsetWidth = 8
        expectError(raw.bytes, .invalidOffset, mentioning: "offset table entry 0")
    }

    @Test(
        "counts and lengths of 2^31 and 2^62",
        arguments: [UInt64(1) << 31, UInt64(1) << 62, UInt64.max],
        [0x40, 0x50, 0x60, 0xA0, 0xD0] as [UInt8])
    func hugeCounts(count: UInt64, marker: UInt8) {
        let object: [UInt8] = [marker | 0x0F, 0x13] + bigEndian(count, width: 8)
        expectError(RawPropertyList(objects: [object]).bytes, .invalidLength, mentioning: "claims \(count) elements")
    }

    @Test("lengths that are not integers, and ends of data past the object area")
    func badLengths() {
        expectError(RawPropertyList(objects: [[0x5F, 0x23, 0, 0, 0, 0, 0, 0, 0, 0]]).bytes, .invalidLength, mentioning: "not a 1-8 byte integer")
        expectError(RawPropertyList(objects: [[0x5F, 0x14] + [UInt8](repeating: 0, count: 16)]).bytes, .invalidLength)
        expectError(RawPropertyList(objects: [[0x4E, 1, 2]]).bytes, .invalidLength, mentioning: "claims 14 elements")
        expectError(RawPropertyList(objects: [[0x13, 1, 2]]).bytes, .invalidLength, mentioning: "8-byte integer")
        expectError(RawPropertyList(objects: [[0x23, 1, 2]]).bytes, .invalidLength, mentioning: "64-bit real")
        expectError(RawPropertyList(objects: [[0x33, 1]]).bytes, .invalidLength, mentioning: "date")
    }

    @Test("invalid UTF-16 and non-ASCII bytes in ASCII strings")
    func invalidStrings() throws {
        expectError(RawPropertyList(objects: [[0x62, 0xD8, 0x00, 0x00, 0x61]]).bytes, .invalidString, mentioning: "unpaired surrogate at code unit 0")
        expectError(RawPropertyList(objects: [[0x61, 0xD8, 0x3D]]).bytes, .invalidString, mentioning: "unpaired surrogate")
        expectError(RawPropertyList(objects: [[0x62, 0x00, 0x61, 0xDC, 0x00]]).bytes, .invalidString, mentioning: "code unit 1")
        expectError(RawPropertyList(objects: [[0x53, 0x61, 0xE9, 0x62]]).bytes, .invalidString, mentioning: "0xE9")
        // A valid surrogate pair decodes.
        #expect(try decoder.decode(RawPropertyList(objects: [[0x62, 0xD8, 0x3D, 0xDE, 0x00]]).bytes) == "😀")
    }

    @Test("dictionary keys that are not strings")
    func nonStringKeys() {
        let raw = RawPropertyList(objects: [[0xD1, 1, 2], [0x10, 7], asciiObject("v")])
        expectError(raw.bytes, .invalidKey, mentioning: "not a string")
        let arrayKey = RawPropertyList(objects: [[0xD1, 1, 2], arrayObject([]), asciiObject("v")])
        expectError(arrayKey.bytes, .invalidKey)
    }

    @Test("references to objects that do not exist")
    func danglingReferences() {
        expectError(RawPropertyList(objects: [arrayObject([7])]).bytes, .invalidReference, mentioning: "refers to object 7")
    }

    @Test("a self-referencing array and a 2-cycle are rejected")
    func cycles() {
        expectError(RawPropertyList(objects: [arrayObject([0])]).bytes, .cycle, mentioning: "object 0 contains itself")
        expectError(RawPropertyList(objects: [arrayObject([1]), arrayObject([0])]).bytes, .cycle)
        expectError(RawPropertyList(objects: [[0xD1, 1, 0], asciiObject("k")]).bytes, .cycle)
    }

    /// A chain of `depth` arrays, each holding the next, the last holding a string.
    func chain(_ depth: Int) -> [UInt8] {
        var raw = RawPropertyList(objects: [])
        let width = depth + 1 > 255 ? (depth + 1 > 65_535 ? 4 : 2) : 1
        for i in 0..<depth {
            raw.objects.append([0xA1] + bigEndian(UInt64(i + 1), width: width))
        }
        raw.objects.append(asciiObject("end"))
        raw.referenceWidth = width
        raw.offsetWidth = 4
        return raw.bytes
    }

    @Test("nesting: 64 decodes, 65 and 60,000 are too deep, 100,000 declares too many objects")
    func depth() throws {
        #expect(try decoder.decode(chain(64)) == InteropCases.nested(64).replacingBottom("end"))
        expectError(chain(65), .tooDeep, mentioning: "deeper than 64")
        expectError(chain(60_000), .tooDeep)
        expectError(chain(100_000), .tooManyObjects)
    }

    @Test("a subtree shared deeper than where it was first read still counts its depth")
    func sharedDepth() {
        // Object 1 is a chain of 40 arrays; the top holds it directly and again under 30 more.
        var raw = RawPropertyList(objects: [arrayObject([1, 42])])
        for i in 1...40 { raw.objects.append(arrayObject([i + 1])) }
        raw.objects.append(asciiObject("end"))  // object 41
        for i in 42..<72 { raw.objects.append(arrayObject([i + 1 == 72 ? 1 : i + 1])) }
        expectError(raw.bytes, .tooDeep, mentioning: "deeper than 64")
        // Referenced a third time, the subtree comes from the cache, which checks it too.
        raw.objects[0] = arrayObject([1, 1, 42])
        expectError(raw.bytes, .tooDeep, mentioning: "where it is shared")
    }

    /// "Billion laughs": each level an array holding the next level twice.
    func laughs(_ levels: Int) -> [UInt8] {
        var raw = RawPropertyList(objects: [])
        for i in 0..<levels { raw.objects.append(arrayObject([i + 1, i + 1])) }
        raw.objects.append(asciiObject("lol"))
        return raw.bytes
    }

    @Test("billion laughs at 24 and 64 levels exceed the expansion limit", arguments: [24, 64])
    func billionLaughs(levels: Int) {
        expectError(laughs(levels), .tooManyExpandedObjects, mentioning: "more than 100000")
    }

    @Test("sharing within the expansion limit decodes")
    func modestSharing() throws {
        let value = try decoder.decode(laughs(10))
        var depth = 0
        var node = value
        while case .array(let elements) = node { depth += 1; node = elements[1] }
        #expect(depth == 10)
        #expect(node == "lol")
    }

    @Test("markers the format does not define, and types preferences cannot hold")
    func markers() {
        for marker: UInt8 in [0x01, 0x07, 0x15, 0x21, 0x24, 0x30, 0x34, 0x70, 0x90, 0xB0, 0xE0, 0xF0, 0xFF] {
            expectError(RawPropertyList(objects: [[marker] + [UInt8](repeating: 0, count: 16)]).bytes, .invalidMarker, mentioning: "marker")
        }
        expectError(RawPropertyList(objects: [[0x00]]).bytes, .unsupportedType, mentioning: "null")
        expectError(RawPropertyList(objects: [[0x0F]]).bytes, .unsupportedType, mentioning: "fill")
        expectError(RawPropertyList(objects: [[0x80, 0x01]]).bytes, .unsupportedType, mentioning: "UID")
        expectError(RawPropertyList(objects: [[0xC0]]).bytes, .unsupportedType, mentioning: "set")
    }

    @Test("16-byte integers outside Int64.min...UInt64.max")
    func hugeIntegers() throws {
        let tooBig: [UInt8] = [0x14] + bigEndian(1, width: 8) + bigEndian(0, width: 8)
        expectError(RawPropertyList(objects: [tooBig]).bytes, .integerOutOfRange)
        let tooSmall: [UInt8] = [0x14] + bigEndian(UInt64.max, width: 8) + bigEndian(5, width: 8)
        expectError(RawPropertyList(objects: [tooSmall]).bytes, .integerOutOfRange)
        let minusTwo: [UInt8] = [0x14] + bigEndian(UInt64.max, width: 8) + bigEndian(UInt64.max - 1, width: 8)
        #expect(try decoder.decode(RawPropertyList(objects: [minusTwo]).bytes) == -2)
    }

    @Test("limits can be tightened")
    func tighterLimits() {
        let strict = BinaryPropertyListDecoder(limits: PropertyListLimits(depth: 2, objectCount: 10, expandedObjectCount: 5))
        #expect(throws: PropertyListError.self) { try strict.decode(chain(3)) }
        #expect((try? strict.decode(chain(2))) != nil)
        #expect((try? strict.decode(chain(12))) == nil)
        let wide = RawPropertyList(objects: [arrayObject([1, 1, 1, 1, 1]), asciiObject("x")]).bytes
        #expect((try? strict.decode(wide)) == nil, "6 expanded values exceed a limit of 5")
    }

    @Test("10,000 random mutations of a valid file decode or fail with a typed error")
    func mutations() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let original = try BinaryPropertyListEncoder().encode(InteropCases.all["dict_nested"]!)
        var failures = 0
        for _ in 0..<10_000 {
            var file = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(file.count))
                file[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            do { _ = try decoder.decode(file) } catch { failures += 1 }
        }
        #expect(failures > 0, "mutations must hit at least some checks")
    }
}

/// A small seeded generator so mutation tests repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension PropertyListValue {
    /// The same nesting with the innermost string replaced.
    func replacingBottom(_ string: String) -> PropertyListValue {
        if case .array(let elements) = self { return .array(elements.map { $0.replacingBottom(string) }) }
        return .string(string)
    }
}
