// `PreferencesWorker conformance-adapter`: the Swift implementation's adapter for the
// language-neutral conformance suite (Tests/Conformance/README.md has the contract). It reads
// one JSON request per line on standard input and answers each with one JSON line, through
// the library's public API only, as any program using it would.
//
// Answers and events (observer callbacks run on the watcher thread) go through one lock,
// straight to the descriptor, so a line is never split or held in a buffer.
import Foundation
import Glibc
import DomainStorage
import Preferences

/// Writes whole lines to standard output, one writer at a time.
final class ConformanceOutput: @unchecked Sendable {
    // Safety: `lock` guards every write.
    private let lock = NSLock()

    func write(_ object: JSON) {
        let line = Array((object.serialized + "\n").utf8)
        lock.lock()
        defer { lock.unlock() }
        var written = 0
        line.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Glibc.write(1, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                written += count
            }
        }
    }
}

/// A JSON value, enough of it for the contract: numbers keep whether they were integers.
enum JSON: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            // `-0.0` decodes as the integer 0 too; a real's sign must survive.
            if value == 0, let real = try? container.decode(Double.self), real.sign == .minus {
                self = .double(real)
            } else {
                self = .int(value)
            }
        } else if let value = try? container.decode(UInt64.self) {
            self = .uint(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    subscript(key: String) -> JSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }

    var int: Int? {
        switch self {
        case .int(let value): Int(exactly: value)
        case .uint(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    var double: Double? {
        switch self {
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The value as one line of JSON, keys sorted.
    var serialized: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value):
            // Only finite numbers reach here (values tag the others as strings).
            return value.isFinite ? "\(value)" : "null"
        case .string(let value): return Self.quoted(value)
        case .array(let elements): return "[" + elements.map(\.serialized).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.serialized }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(scalar.value, radix: 16).zeroPadded4
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate var zeroPadded4: String { String(repeating: "0", count: max(0, 4 - count)) + self }
}

/// A request the adapter cannot carry out, with the contract's error kind.
struct AdapterError: Error {
    let kind: String
    let message: String

    init(_ kind: String, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The contract's kind for a library error.
    init(_ error: PreferencesError) {
        let code = error.code
        let kind: String
        switch code {
        case .invalidDomainName: kind = "invalid-domain-name"
        case .symbolicLink, .notRegularFile, .wrongOwner, .insecurePermissions: kind = "refused-file"
        case .tooLarge: kind = "too-large"
        case .corrupt, .notADictionary: kind = "corrupt"
        case .lockTimeout: kind = "lock-timeout"
        case .schemaViolation: kind = "invalid-value"
        case .unsupportedProtocolVersion: kind = "unsupported-protocol-version"
        default: kind = "io"
        }
        self.init(kind, "\(code): \(error)")
    }
}

/// Tagged JSON (the contract's value form) to a property-list value.
func propertyListValue(_ json: JSON) throws(AdapterError) -> PropertyListValue {
    guard case .object(let members) = json, members.count == 1, let (tag, content) = members.first else {
        throw AdapterError("invalid-request", "a value is an object with exactly one key: \(json.serialized)")
    }
    switch (tag, content) {
    case ("string", .string(let text)): return .string(text)
    case ("integer", .int(let number)): return .integer(PropertyListInteger(number))
    case ("integer", .uint(let number)): return .integer(PropertyListInteger(number))
    case ("real", .string("nan")): return .double(.nan)
    case ("real", .string("inf")): return .double(.infinity)
    case ("real", .string("-inf")): return .double(-.infinity)
    case ("real", let number) where number.double != nil: return .double(number.double!)
    case ("bool", .bool(let flag)): return .bool(flag)
    case ("date", let number) where number.double != nil: return .date(Date(timeIntervalSinceReferenceDate: number.double!))
    case ("data", .string(let base64)):
        guard let data = Data(base64Encoded: base64) else { throw AdapterError("invalid-request", "bad base64 in \(json.serialized)") }
        return .data(data)
    case ("array", .array(let elements)):
        var values: [PropertyListValue] = []
        for element in elements { values.append(try propertyListValue(element)) }
        return .array(values)
    case ("dict", .object(let entries)):
        var values: [String: PropertyListValue] = [:]
        for (key, element) in entries { values[key] = try propertyListValue(element) }
        return .dictionary(values)
    default:
        throw AdapterError("invalid-request", "not a tagged value: \(json.serialized)")
    }
}

/// A property-list value in tagged JSON.
func taggedJSON(_ value: PropertyListValue?) -> JSON {
    guard let value else { return .null }
    func real(_ number: Double) -> JSON {
        if number.isNaN { return .string("nan") }
        if number.isInfinite { return .string(number < 0 ? "-inf" : "inf") }
        return .double(number)
    }
    switch value {
    case .string(let text): return .object(["string": .string(text)])
    case .integer(let number):
        if let signed = number.int64Value { return .object(["integer": .int(signed)]) }
        return .object(["integer": .uint(number.uint64Value ?? 0)])
    case .float(let number): return .object(["real": real(Double(number))])
    case .double(let number): return .object(["real": real(number)])
    case .bool(let flag): return .object(["bool": .bool(flag)])
    case .date(let date): return .object(["date": real(date.timeIntervalSinceReferenceDate)])
    case .data(let data): return .object(["data": .string(data.base64EncodedString())])
    case .array(let elements): return .object(["array": .array(elements.map { taggedJSON($0) })])
    case .dictionary(let entries): return .object(["dict": .object(entries.mapValues { taggedJSON($0) })])
    }
}

/// The adapter's state: one store per domain, and the watches.
final class ConformanceAdapter {
    let output = ConformanceOutput()
    var stores: [String: PreferenceStore] = [:]
    var watches: [String: PreferenceObservation] = [:]
    let configuration = PreferenceStore.Configuration(arguments: [CommandLine.arguments[0]])

    func store(_ request: JSON) throws(AdapterError) -> PreferenceStore {
        let domain = try field(request, "domain")
        if let existing = stores[domain] { return existing }
        do throws(PreferencesError) {
            let opened = try PreferenceStore(domain: domain, configuration: configuration)
            stores[domain] = opened
            return opened
        } catch {
            throw AdapterError(error)
        }
    }

    func field(_ request: JSON, _ name: String) throws(AdapterError) -> String {
        guard let value = request[name]?.string else { throw AdapterError("invalid-request", "\"\(name)\" must be a string") }
        return value
    }

    /// One commit of `set` and `delete` through a transaction: applied under the lock and
    /// never left pending, so a refused write changes nothing, in memory or on disk.
    /// The crash points this build can reach: every one in a debug build, none in a release
    /// build, where the library's seam (``DurabilityFaults/crash(at:)``) does nothing.
    static var crashPoints: [DurabilityFaults.CrashPoint] {
        #if DEBUG
        DurabilityFaults.CrashPoint.allCases
        #else
        []
        #endif
    }

    func commit(_ store: PreferenceStore, set: [String: PropertyListValue], delete: [String], whileLocked: () -> Void = {}) throws(AdapterError) {
        do {
            try store.transaction { transaction in
                for (key, value) in set.sorted(by: { $0.key < $1.key }) { try transaction.trySet(value, forKey: key) }
                for key in delete { try transaction.trySet(nil, forKey: key) }
                whileLocked()
            }
        } catch let error as PreferencesError {
            throw AdapterError(error)
        } catch {
            throw AdapterError("io", "\(error)")
        }
    }

    func handle(_ request: JSON) throws(AdapterError) -> [String: JSON] {
        guard let op = request["op"]?.string else { throw AdapterError("invalid-request", "no \"op\"") }
        switch op {
        case "hello":
            return ["implementation": .string("swift-preferences"), "protocol": .int(1), "crash_points": .array(Self.crashPoints.map { .string($0.rawValue) })]
        case "get":
            let key = try field(request, "key")
            return ["value": taggedJSON(try store(request).value(forKey: key))]
        case "resolved":
            let preferences = try store(request)
            var values: [String: JSON] = [:]
            for key in preferences.dictionaryRepresentation().keys {
                if let value = preferences.value(forKey: key) { values[key] = taggedJSON(value) }
            }
            return ["value": .object(["dict": .object(values)])]
        case "own":
            let domain = try field(request, "domain")
            do throws(PreferencesError) {
                let files = PreferenceFiles(configuration: configuration)
                let values = try files.persistentDomainValues(at: .named(domain)) ?? [:]
                return ["value": taggedJSON(.dictionary(values))]
            } catch {
                throw AdapterError(error)
            }
        case "set":
            let key = try field(request, "key")
            let value = try propertyListValue(request["value"] ?? .null)
            try commit(try store(request), set: [key: value], delete: [])
            return [:]
        case "delete":
            let key = try field(request, "key")
            try commit(try store(request), set: [:], delete: [key])
            return [:]
        case "transaction":
            let preferences = try store(request)
            var set: [String: PropertyListValue] = [:]
            if case .object(let entries)? = request["set"] {
                for (key, value) in entries { set[key] = try propertyListValue(value) }
            }
            var delete: [String] = []
            if case .array(let keys)? = request["delete"] { delete = keys.compactMap(\.string) }
            let hold = request["hold_ms"]?.int ?? 0
            let id = request["id"] ?? .null
            try commit(preferences, set: set, delete: delete) {
                guard hold > 0 else { return }
                output.write(.object(["event": .string("locked"), "id": id]))
                usleep(UInt32(hold) * 1000)
            }
            return [:]
        case "increment":
            let preferences = try store(request)
            let key = try field(request, "key")
            let amount = request["by"]?.int ?? 1
            let count = request["count"]?.int ?? 1
            var last = 0
            for _ in 0..<max(count, 1) {
                do throws(PreferencesError) {
                    last = try preferences.increment(forKey: key, by: amount)
                } catch {
                    throw AdapterError(error)
                }
            }
            return ["value": .object(["integer": .int(Int64(last))])]
        case "watch":
            let domain = try field(request, "domain")
            let preferences = try store(request)
            let output = self.output
            watches[domain] = preferences.observe(options: [.old, .new]) { change in
                guard !change.isPrior else { return }
                output.write(
                    .object([
                        "event": .string("change"), "domain": .string(domain), "key": .string(change.key),
                        "old": taggedJSON(change.oldValue), "new": taggedJSON(change.newValue),
                    ]))
            }
            return [:]
        case "unwatch":
            let domain = try field(request, "domain")
            watches.removeValue(forKey: domain)?.cancel()
            return [:]
        case "protocol_version":
            // null when the marker names no version (the library then treats the directory
            // as newer than it knows).
            let version = PreferenceFiles.protocolVersion(ofDirectory: try field(request, "directory"))
            return ["version": version.map { .int(Int64($0)) } ?? .null]
        case "crash":
            let preferences = try store(request)
            let key = try field(request, "key")
            let value = try propertyListValue(request["value"] ?? .null)
            guard let point = request["at"]?.string.flatMap(DurabilityFaults.CrashPoint.init(rawValue:)) else {
                throw AdapterError("invalid-request", "crash point \(request["at"]?.serialized ?? "?") is not supported")
            }
            // The library's debug-only seam: the process exits at that point of its commit.
            DurabilityFaults.crash(at: point)
            try commit(preferences, set: [key: value], delete: [])
            // The directory sync may run on its own queue after the commit returns.
            if point == .directorySynced {
                do throws(PreferencesError) { try preferences.flush() } catch { throw AdapterError(error) }
            }
            throw AdapterError("io", "the commit ended without reaching crash point \(point.rawValue)")
        case "quit":
            return [:]
        default:
            throw AdapterError("invalid-request", "unknown op \(op)")
        }
    }

    func run() {
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy(\.isWhitespace) { continue }
            let request: JSON
            do {
                request = try JSONDecoder().decode(JSON.self, from: Data(line.utf8))
            } catch {
                output.write(.object(["id": .null, "ok": .bool(false), "error": .object(["kind": .string("invalid-request"), "message": .string("not JSON: \(error)")])]))
                continue
            }
            var answer: [String: JSON]
            do throws(AdapterError) {
                answer = try handle(request)
                answer["ok"] = .bool(true)
            } catch {
                answer = ["ok": .bool(false), "error": .object(["kind": .string(error.kind), "message": .string(error.message)])]
            }
            answer["id"] = request["id"] ?? .null
            output.write(.object(answer))
            if request["op"]?.string == "quit" { break }
        }
        for watch in watches.values { watch.cancel() }
        // Everything was committed before its answer; nothing is pending.
        exit(0)
    }
}

/// `conformance-adapter`: speaks the contract on standard input and output until "quit" or EOF.
func conformanceAdapter() {
    ConformanceAdapter().run()
}
