import DeclaredSettings
import Foundation
import PropertyList
import TestSupport
import Testing

/// The checked-in schemas: a native schema and a realistic Settings.bundle.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures", isDirectory: true)

extension TemporaryDirectory {
    /// Writes `bytes` to `name` (folders created as needed) and returns the file's path.
    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let url = file(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes `value` as an XML property list to `name` and returns the file's path.
    @discardableResult
    func write(_ name: String, _ value: PropertyListValue) throws -> String {
        try write(name, bytes: XMLPropertyListEncoder().encode(value))
    }

    /// Writes a native schema declaring `keys` (plus any top-level `extra` fields) to
    /// `name` and returns its path.
    @discardableResult
    func writeNative(_ name: String = "com.example.test.plist", keys: [String: PropertyListValue], extra: [String: PropertyListValue] = [:]) throws -> String {
        var top = extra
        top["Keys"] = .dictionary(keys)
        return try write(name, .dictionary(top))
    }

    /// Writes a Settings.bundle whose panes hold `panes` (file stem → specifiers; the
    /// bundle's own is `Root`) and returns the bundle's path.
    @discardableResult
    func writeBundle(named name: String = "com.example.test.bundle", _ panes: [String: [PropertyListValue]]) throws -> String {
        for (stem, specifiers) in panes {
            try write("\(name)/\(stem).plist", ["PreferenceSpecifiers": .array(specifiers)])
        }
        return file(name).path
    }
}

/// A Settings.bundle specifier of `type` with `fields`.
func specifier(_ type: String, _ fields: [String: PropertyListValue] = [:]) -> PropertyListValue {
    var all = fields
    all["Type"] = .string(type)
    return .dictionary(all)
}

/// Reads the one-key bundle `Root` = `specifiers` and returns the schema.
func readBundle(_ specifiers: [PropertyListValue]) throws -> PreferenceSchema {
    let directory = try TemporaryDirectory()
    let bundle = try directory.writeBundle(["Root": specifiers])
    return try PreferenceSchema(contentsOf: bundle)
}

/// Runs `body`, requiring it to throw a ``SchemaError`` with `code`, `path` and `keyPath`
/// (and, when given, a reason that mentions `words`); returns the error.
@discardableResult
func expectSchemaError(
    _ code: SchemaError.Code, path: String, keyPath: String, mentioning words: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(SchemaError) -> PreferenceSchema
) -> SchemaError? {
    let error = expectThrows(code, code: \.code, mentioning: words, in: \.reason, sourceLocation: sourceLocation, body)
    if let error {
        #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
        #expect(error.keyPath == keyPath, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains(path), "\(error)", sourceLocation: sourceLocation)
    }
    return error
}

/// A small seeded generator, so the random-input tests repeat exactly.
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

/// A `bplist00` file built object by object, for files no encoder writes (cycles): one-byte
/// offsets and references, object 0 on top.
func rawBinaryPropertyList(_ objects: [[UInt8]]) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for object in objects {
        offsets.append(UInt8(out.count))
        out += object
    }
    let table = UInt64(out.count)
    out += offsets
    out += [0, 0, 0, 0, 0, 0, 1, 1]
    out += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(table)
    return out
}

private func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
}
