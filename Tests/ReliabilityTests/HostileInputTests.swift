import Foundation
import Glibc
@testable import Preferences
import PropertyList
import TestSupport
import Testing

/// A realistic 50 KB domain: strings, numbers, dates, data, arrays and nested dictionaries.
func fiftyKilobyteDomain() throws -> [UInt8] {
    var values: [String: PropertyListValue] = [:]
    var index = 0
    while true {
        values["string.\(index)"] = .string("value number \(index) with some text ünï 🎉")
        values["integer.\(index)"] = .integer(index * 7919)
        values["real.\(index)"] = .double(Double(index) / 3)
        values["flag.\(index)"] = .bool(index % 2 == 0)
        values["date.\(index)"] = .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1000))
        values["data.\(index)"] = .data(Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* index) }))
        values["array.\(index)"] = [.integer(index), "two", .double(3.5), ["nested": .integer(index)]]
        values["dictionary.\(index)"] = ["a": .integer(index), "b": "text", "c": [.bool(true), .integer(-index)]]
        let bytes = try BinaryPropertyListEncoder().encode(.dictionary(values))
        if bytes.count >= 50_000 { return bytes }
        index += 1
    }
}

/// A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`).
func processStatus(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

/// Resets the process's peak resident size (`VmHWM`) to its current size.
func resetPeakResidentSize() {
    _ = try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Damaged input at scale, and the committed libFuzzer corpus.
@Suite("Hostile input at scale")
struct HostileInputScaleTests {
    /// The corpus `Tests/Scripts/fuzz.sh` grew and committed.
    static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test("the committed libFuzzer corpus replays: every input decodes or gives a typed error")
    func corpusReplay() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpusDirectory.path)
        #expect(names.count >= 100, "the corpus in \(Self.corpusDirectory.path) is missing or tiny")
        var decoded = 0
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: Self.corpusDirectory.appendingPathComponent(name)))
            do {
                _ = try BinaryPropertyListDecoder().decode(bytes)
                decoded += 1
            } catch {
                // A typed error is the other allowed outcome; the type is the `throws` clause's.
                #expect(!error.description.isEmpty)
            }
        }
        figure("fuzz corpus replay", "\(names.count) inputs, \(decoded) decode, \(names.count - decoded) typed errors")
    }
}

/// The schema fuzzer's committed corpus (`bash Tests/Scripts/fuzz.sh SECONDS schema`).
@Suite("Schema fuzz corpus")
struct SchemaCorpusTests {
    static let corpusDirectory = HostileInputScaleTests.corpusDirectory.deletingLastPathComponent().appendingPathComponent("SchemaCorpus")

    @Test("the committed schema corpus replays: a schema or a typed error, and an accepted schema's defaults keep its rules")
    func corpusReplay() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpusDirectory.path)
        #expect(names.count >= 100, "the corpus in \(Self.corpusDirectory.path) is missing or tiny")
        var accepted = 0
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: Self.corpusDirectory.appendingPathComponent(name)))
            guard let first = bytes.first else { continue }
            let body = Array(bytes.dropFirst())
            // The fuzzer's input shape: an even first byte is one native schema, an odd one a
            // Settings.bundle whose Root.plist and panes A, B, C are split at 0xFF.
            let schema: PreferenceSchema
            do throws(SchemaError) {
                if first & 1 == 0 {
                    schema = try PreferenceSchema(native: Data(body), path: "/fuzz/native.plist")
                } else {
                    var files: [String: Data] = [:]
                    for (index, part) in body.split(separator: 0xFF, maxSplits: 3, omittingEmptySubsequences: false).enumerated() {
                        files["/fuzz/x.bundle/" + ["Root", "A", "B", "C"][index] + ".plist"] = Data(part)
                    }
                    let table = files
                    schema = try PreferenceSchema(settingsBundle: "/fuzz/x.bundle", reader: SchemaFileReader { path throws(SchemaError) -> Data in
                        guard let data = table[path] else { throw SchemaError(.missingFile, path: path, "no such file") }
                        return data
                    })
                }
            } catch {
                #expect(!error.description.isEmpty)
                continue
            }
            accepted += 1
            for key in schema.keys.values {
                guard let value = key.defaultValue else { continue }
                #expect(schema.violation(setting: value, forKey: key.name) == nil, "\(name): \(key.name)")
            }
        }
        figure("schema fuzz corpus replay", "\(names.count) inputs, \(accepted) accepted, \(names.count - accepted) typed errors")
    }
}

/// Inputs the fuzzer found problems with, kept as regression tests.
@Suite("Fuzz findings")
struct FuzzFindingTests {
    static let findings = HostileInputScaleTests.corpusDirectory.deletingLastPathComponent().appendingPathComponent("Findings")

    @Test("a date whose time is NaN is a typed invalidDate error, not a value that traps when printed")
    func nanDate() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.findings.appendingPathComponent("nan-date")))
        #expect {
            try BinaryPropertyListDecoder().decode(bytes)
        } throws: { error in
            (error as? PropertyListError)?.code == .invalidDate
        }
        // The smallest such file: a lone date object holding a NaN.
        let nan = Double.nan.bitPattern
        let date: [UInt8] = [0x33] + (0..<8).map { UInt8(truncatingIfNeeded: nan >> (56 - 8 * $0)) }
        let file: [UInt8] = Array("bplist00".utf8) + date + [8] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1]
            + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 17]
        #expect(throws: PropertyListError.self) { try BinaryPropertyListDecoder().decode(file) }
        // An ordinary date in the same shape still decodes.
        let good: [UInt8] = Array("bplist00".utf8) + [0x33, 0x41, 0xC9, 0, 0, 0, 0, 0, 0, 8] + Array(file.suffix(32))
        #expect(try BinaryPropertyListDecoder().decode(good) == .date(Date(timeIntervalSinceReferenceDate: 838_860_800)))
    }
}

/// Measurements of time and heap that other tests running in parallel would disturb: they
/// run only in their own `swift test` invocation with `RELIABILITY_ISOLATED=1`, one at a
/// time (Tests/Scripts/run-all.sh does this).
@Suite(
    "Hostile input, measured in isolation", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["RELIABILITY_ISOLATED"] == "1", "run alone by run-all.sh"))
struct IsolatedMeasurementTests {
    @Test("10,000 byte-flip mutants of a 50 KB domain: each decodes or gives a typed error, under 50 ms and 16 MB")
    func mutants() throws {
        let original = try fiftyKilobyteDomain()
        #expect(original.count >= 50_000)
        let count = isSoak ? 100_000 : 10_000
        var generator = SystemRandomNumberGenerator()
        var decoded = 0
        var codes: [String: Int] = [:]
        var durations: [Duration] = []
        durations.reserveCapacity(count)
        resetPeakResidentSize()
        let residentBefore = processStatus("VmRSS")
        let decoder = BinaryPropertyListDecoder()
        let clock = ContinuousClock()
        for _ in 0..<count {
            var mutant = original
            for _ in 0..<Int.random(in: 1...16, using: &generator) {
                let position = Int.random(in: 0..<mutant.count, using: &generator)
                mutant[position] ^= UInt8.random(in: 1...255, using: &generator)
            }
            let start = clock.now
            do {
                _ = try decoder.decode(mutant)
                durations.append(clock.now - start)
                decoded += 1
            } catch {
                durations.append(clock.now - start)
                codes[error.code.description, default: 0] += 1
            }
        }
        // Mutants run one at a time, so the peak over all of them bounds each one's peak.
        let peakGrowth = processStatus("VmHWM") - residentBefore
        durations.sort()
        let worst = durations.last ?? .zero
        let p99 = durations[durations.count * 99 / 100]
        // The issue's bounds: 50 ms and 16 MB. Memory is asserted; time is a figure, compared
        // with 50 ms in RELIABILITY.md and not asserted (a unit test holds no timing threshold:
        // every mutant finishing at all, bounded by the decoder's object and depth limits, is
        // the behaviour).
        #expect(peakGrowth < 16 << 20, "the peak resident size grew by \(peakGrowth) bytes")
        figure(
            "\(count) mutants of a \(original.count)-byte domain",
            "\(decoded) decode, \(count - decoded) typed errors \(codes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); p99 \(milliseconds(p99)), max \(milliseconds(worst)); peak resident size \(peakGrowth / 1024) KiB above the start")
    }

    @Test("reloading a corrupt domain file 100,000 times (20,000 outside the soak) grows memory by less than 1 MB")
    func corruptReloads() throws {
        let fixture = try ReliabilityFixture()
        // A 1 KB domain cut short, so its trailer is garbage (a 50 KB one takes 65 s here).
        var damaged = try BinaryPropertyListEncoder().encode(.dictionary(Dictionary(uniqueKeysWithValues: (0..<40).map { ("key \($0)", PropertyListValue.integer($0)) })))
        damaged.removeLast(7)
        try Data(damaged).write(to: URL(fileURLWithPath: fixture.path("com.example.corrupt")))
        let domain = PersistentDomain.shared(fixture.file("com.example.corrupt"), policy: FilePolicy(), isWritable: true)
        // A reload of a corrupt file costs about 1 ms in a debug build, so the test command
        // does 20,000 and the soak the issue's 100,000.
        let count = isSoak ? 100_000 : 20_000
        for _ in 0..<2_000 { domain.reload() }
        let before = processStatus("VmRSS")
        let start = ContinuousClock.now
        for _ in 0..<count { domain.reload() }
        let elapsed = ContinuousClock.now - start
        let growth = processStatus("VmRSS") - before
        #expect(domain.currentValues().isEmpty)
        #expect(growth < 1 << 20, "resident size grew by \(growth) bytes")
        figure("\(count) reloads of a corrupt file", "resident size grew by \(growth / 1024) KiB, \(milliseconds(elapsed)) in all")
    }
}
