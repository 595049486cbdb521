import Foundation
import PropertyList

/// One value to benchmark, in both worlds: ours (`PropertyListValue` and our bytes) and
/// Foundation's (the same tree as Foundation objects, and the bytes Foundation writes).
///
/// Everything here is built once per benchmark process, outside the measured region.
final class CodecFixture: @unchecked Sendable {
    // @unchecked: `foundationObject` is an immutable tree of immutable Foundation objects,
    // never mutated after init; Swift cannot see that through `Any`.

    let name: String
    let value: PropertyListValue
    /// Our encoding of `value`.
    let ourBytes: [UInt8]
    /// `value` as Foundation objects: NSString, NSNumber, Date, Data, [Any], [String: Any].
    let foundationObject: Any
    /// Foundation's binary encoding of `foundationObject`.
    let foundationBytes: Data

    init(name: String, value: PropertyListValue) {
        self.name = name
        self.value = value
        do {
            ourBytes = try BinaryPropertyListEncoder().encode(value)
            foundationObject = Self.foundationObject(for: value)
            foundationBytes = try PropertyListSerialization.data(
                fromPropertyList: foundationObject, format: .binary, options: 0)
        } catch {
            fatalError("\(name): cannot build the fixture: \(error)")
        }
        crossCheck()
    }

    /// The 1,000-key mixed dictionary.
    static let mixed = CodecFixture(name: "1,000-key mixed dictionary", value: makeMixedDictionary())
    /// The ~1 MiB domain.
    static let domain = CodecFixture(name: "1 MiB domain", value: makeDomain())

    /// Checks, once, that each side reads the other's bytes back to the same value; prints
    /// a warning (and never fails the run) if not, so a mismatch is seen in the results log.
    private func crossCheck() {
        var problems: [String] = []
        // We read Foundation's bytes.
        do {
            let decoded = try BinaryPropertyListDecoder().decode(foundationBytes)
            if decoded != value {
                problems.append("our decoder reads Foundation's bytes as a different value")
            }
        } catch {
            problems.append("our decoder rejects Foundation's bytes: \(error)")
        }
        // Foundation reads our bytes: parse them with Foundation, write the result back out
        // with Foundation, and compare what that holds with the original value.
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            let parsed = try PropertyListSerialization.propertyList(
                from: Data(ourBytes), options: [], format: &format)
            if format != .binary {
                problems.append("Foundation read our bytes as format \(format), not binary")
            }
            let rewritten = try PropertyListSerialization.data(fromPropertyList: parsed, format: .binary, options: 0)
            let decoded = try BinaryPropertyListDecoder().decode(rewritten)
            if decoded != value {
                problems.append("Foundation reads our bytes as a different value")
            }
        } catch {
            problems.append("Foundation cannot read our bytes: \(error)")
        }
        let sameBytes = ourBytes.elementsEqual(foundationBytes) ? "the same bytes" : "different bytes"
        var report = "note: \(name): our encoding \(ourBytes.count) bytes, Foundation's \(foundationBytes.count) bytes (\(sameBytes))"
        if problems.isEmpty {
            report += "; each side reads the other's bytes back to the same value\n"
        } else {
            report += "\nWARNING: \(name): " + problems.joined(separator: "\nWARNING: \(name): ") + "\n"
        }
        FileHandle.standardError.write(Data(report.utf8))
    }

    /// Converts a value to the Foundation objects `PropertyListSerialization` takes.
    static func foundationObject(for value: PropertyListValue) -> Any {
        switch value {
        case .bool(let bool): NSNumber(value: bool)
        case .integer(let integer):
            if let signed = integer.int64Value { NSNumber(value: signed) } else { NSNumber(value: integer.uint64Value!) }
        case .float(let float): NSNumber(value: float)
        case .double(let double): NSNumber(value: double)
        case .date(let date): date
        case .data(let data): data
        case .string(let string): NSString(string: string)
        case .array(let elements): elements.map { foundationObject(for: $0) } as [Any]
        case .dictionary(let entries): entries.mapValues { foundationObject(for: $0) } as [String: Any]
        }
    }
}

/// 1,000 keys, "key0000" ... "key0999", whose values cycle through every kind a domain
/// holds: short ASCII and non-ASCII strings, small, large and negative integers, doubles,
/// booleans, dates with fractional seconds, small data, and small arrays and dictionaries.
/// Deterministic: the same value on every run.
func makeMixedDictionary() -> PropertyListValue {
    var entries: [String: PropertyListValue] = [:]
    for i in 0..<1_000 {
        let key = "key" + String(repeating: "0", count: 4 - String(i).count) + String(i)
        let value: PropertyListValue =
            switch i % 12 {
            case 0: .string("value \(i)")
            case 1: .string("Grüße, naïve café \(i) — 日本語 🎉")
            case 2: .integer(i % 200)
            case 3: .integer(PropertyListInteger(Int64(i) * 1_000_000_007_000 + 0x1_0000_0000))
            case 4: .integer(-(i * 37) - 1)
            case 5: .double(Double(i) * 0.125 + 1.0 / 3.0)
            case 6: .bool(i % 24 == 6)
            case 7: .date(Date(timeIntervalSinceReferenceDate: 760_000_000 + Double(i) * 86.4 + 0.375))
            case 8: .data(Data((0..<16).map { UInt8(truncatingIfNeeded: i &* 31 &+ $0 &* 7) }))
            case 9: .array([.string("item \(i)"), .integer(i), .bool(i % 2 == 0)])
            case 10: .dictionary(["name": .string("entry \(i)"), "count": .integer(i), "ratio": .double(Double(i) / 7.0)])
            default: .string("/home/user/Documents/project-\(i)/notes.txt")
            }
        entries[key] = value
    }
    return .dictionary(entries)
}

/// Number of keys in the ~1 MiB domain; chosen so that our encoding is close to 1 MiB.
let domainKeyCount = 6_510

/// A large preferences domain of about 1 MiB encoded: `domainKeyCount` keys whose values
/// are 200-character strings (one in 50 of them non-ASCII), 64-byte data, integers and
/// doubles. Deterministic (a fixed linear congruential generator).
func makeDomain() -> PropertyListValue {
    var state: UInt64 = 0x5EED_F00D
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-/")
    var entries: [String: PropertyListValue] = [:]
    for i in 0..<domainKeyCount {
        let key = "com.example.setting." + String(i)
        let value: PropertyListValue
        switch i % 4 {
        case 0, 1:
            var text = String((0..<200).map { _ in letters[Int(next() % UInt64(letters.count))] })
            if i % 50 == 0 {
                text = String(text.prefix(190)) + "äöü日本語🎉ß"
            }
            value = .string(text)
        case 2:
            value = .data(Data((0..<64).map { _ in UInt8(truncatingIfNeeded: next()) }))
        default:
            value = i % 8 == 3 ? .integer(PropertyListInteger(Int64(next()) - (1 << 30))) : .double(Double(next()) / 3.0)
        }
        entries[key] = value
    }
    return .dictionary(entries)
}
