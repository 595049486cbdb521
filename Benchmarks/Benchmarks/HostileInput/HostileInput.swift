import Benchmark
import Foundation
import PropertyList

/// How long the decoder takes to refuse each hostile file of the corpus. Each must be
/// rejected with a thrown `PropertyListError`, in well under 50 ms.
///
/// Set `SWIFT_PREFERENCES_BENCHMARK_SMOKE=1` for a smoke run (a couple of iterations each).
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["SWIFT_PREFERENCES_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: smoke ? 0 : 3,
        maxDuration: smoke ? .milliseconds(20) : .seconds(1),
        maxIterations: smoke ? 2 : 2_000
    )

    for hostileCase in HostileCase.corpus {
        Benchmark(
            "Hostile input: \(hostileCase.name)",
            closure: { benchmark in
                let bytes = hostileCase.bytes
                let decoder = BinaryPropertyListDecoder()
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    do {
                        blackHole(try decoder.decode(bytes))
                        benchmark.error("FAILED: hostile input \(hostileCase.name): the decoder accepted it")
                    } catch {
                        blackHole(error)
                    }
                }
            },
            setup: { hostileCase.checkOnce() }
        )
    }
}

/// One hostile file and the error the decoder should refuse it with.
struct HostileCase: Sendable {
    let name: String
    let bytes: [UInt8]
    let expected: PropertyListError.Code

    static let corpus: [HostileCase] = [
        HostileCase(name: "billion laughs, 24 levels", bytes: billionLaughs(levels: 24), expected: .tooManyExpandedObjects),
        HostileCase(name: "billion laughs, 64 levels", bytes: billionLaughs(levels: 64), expected: .tooManyExpandedObjects),
        HostileCase(name: "60,000 nested arrays", bytes: nestedArrays(count: 60_000), expected: .tooDeep),
        HostileCase(name: "2^40 declared objects", bytes: declaredObjects(1 << 40), expected: .tooManyObjects),
        HostileCase(name: "array count 2^62", bytes: hugeArrayCount(1 << 62), expected: .invalidLength),
        HostileCase(name: "100,000-deep chain", bytes: nestedArrays(count: 100_000), expected: .tooManyObjects),
    ]

    /// Decodes once outside the measured region and reports how and how fast the file was
    /// refused; warns if it was refused for an unexpected reason or took 50 ms or more.
    func checkOnce() {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = Result { () throws(PropertyListError) in try BinaryPropertyListDecoder().decode(bytes) }
        let elapsed = clock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        var report = "note: hostile input \(name) (\(bytes.count) bytes): "
        switch outcome {
        case .success:
            report += "ACCEPTED in \(micros) µs\nWARNING: hostile input \(name) was accepted\n"
        case .failure(let error):
            report += "refused in \(micros) µs with \(error.code): \(error)\n"
            if error.code != expected {
                report += "WARNING: hostile input \(name) was refused with \(error.code), expected \(expected)\n"
            }
        }
        if elapsed >= .milliseconds(50) {
            report += "WARNING: hostile input \(name) took \(micros) µs, over the 50 ms budget\n"
        }
        FileHandle.standardError.write(Data(report.utf8))
    }
}

// MARK: The corpus

/// Each level `k` is an array `[k + 1, k + 1]`; the last object is `false`. Tiny on disk,
/// 2^levels values once shared references are expanded. 1-byte references.
func billionLaughs(levels: Int) -> [UInt8] {
    var file = BinaryPlistBuilder(referenceWidth: 1)
    for level in 0..<levels {
        file.add(file.array([level + 1, level + 1]))
    }
    file.add([0x08])
    return file.build()
}

/// Object `k` is the array `[k + 1]`; the last is an empty array: `count` containers deep.
func nestedArrays(count: Int) -> [UInt8] {
    var file = BinaryPlistBuilder(referenceWidth: BinaryPlistBuilder.width(for: UInt64(count - 1)))
    for index in 0..<(count - 1) {
        file.add(file.array([index + 1]))
    }
    file.add(file.array([]))
    return file.build()
}

/// A one-object file whose trailer declares `count` objects.
func declaredObjects(_ count: UInt64) -> [UInt8] {
    var file = BinaryPlistBuilder(referenceWidth: 8)
    file.add([0x08])
    return file.build(declaredObjectCount: count)
}

/// A one-object file: an array that claims `count` elements and has none.
func hugeArrayCount(_ count: UInt64) -> [UInt8] {
    var file = BinaryPlistBuilder(referenceWidth: 1)
    file.add([0xAF, 0x13] + BinaryPlistBuilder.bigEndian(count, width: 8))
    return file.build()
}

// MARK: A tiny bplist00 byte builder

/// Lays out objects given as raw bytes into a `bplist00` file, with any trailer values,
/// so that files no honest writer produces can be made.
struct BinaryPlistBuilder {
    let referenceWidth: Int
    private(set) var objects: [[UInt8]] = []

    init(referenceWidth: Int) {
        self.referenceWidth = referenceWidth
    }

    mutating func add(_ object: [UInt8]) {
        objects.append(object)
    }

    /// An array object referring to `references`.
    func array(_ references: [Int]) -> [UInt8] {
        var bytes: [UInt8]
        if references.count < 15 {
            bytes = [0xA0 | UInt8(references.count)]
        } else {
            bytes = [0xAF, 0x13] + Self.bigEndian(UInt64(references.count), width: 8)
        }
        for reference in references {
            bytes += Self.bigEndian(UInt64(reference), width: referenceWidth)
        }
        return bytes
    }

    /// The file: header, objects, offset table and trailer; the trailer declares
    /// `declaredObjectCount` objects (the real count unless given) and `topObject`.
    func build(declaredObjectCount: UInt64? = nil, topObject: UInt64 = 0) -> [UInt8] {
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let tableOffset = output.count
        let offsetWidth = Self.width(for: UInt64(offsets.last ?? 0))
        for offset in offsets {
            output += Self.bigEndian(UInt64(offset), width: offsetWidth)
        }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetWidth), UInt8(referenceWidth)]
        output += Self.bigEndian(declaredObjectCount ?? UInt64(objects.count), width: 8)
        output += Self.bigEndian(topObject, width: 8)
        output += Self.bigEndian(UInt64(tableOffset), width: 8)
        return output
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) }
    }

    static func width(for value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }
}
