// core-latency: the tails of reads and sets, under the loads the core must not pass on to
// readers, and the costs that grow with a domain (issue 16's figures).
//
//   core-latency reads SAMPLES        read and set percentiles, in three conditions
//   core-latency scale REPEATS        flush time by domain size beside the raw file steps
//   core-latency memory DOMAINS       resident memory per open 1,000-key domain
//   core-latency schema SAMPLES       what a 200-key schema costs: open, declared read, validated set
//   core-latency commits ROUNDS       what fresh reads and transactions cost: a read with and without
//                                     the commit-counter check, a 10-key transaction against a one-key flush
//   core-latency history-private SAMPLES [KEYS]  the same with a private value in the file: no
//                                        schema (links), declared private (copies), declared but absent
//   core-latency history SAMPLES [KEYS [LIMIT]]  durable flush (set + flush) keeping up to LIMIT
//                                     (32) generations vs none: medians in ns, then their ratio
//   core-latency writer HOME          (internal) another process writing every millisecond
//
// Each line printed is "row<TAB>name<TAB>value..." for Benchmarks/report.py. Single reads
// are timed one by one with CLOCK_MONOTONIC, whose own cost is measured the same way in the
// same condition ("clock only"): on a shared 2-core machine the p99.99 of even an empty
// timed region is the scheduler's, so the row to compare a read against is that one.
// Files go to a fresh temporary directory, removed at the end.
import Foundation
import Glibc
import Preferences
import PropertyList
import Synchronization

let domain = "com.example.benchmark.core"

func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("core-latency: \(message)\n".utf8))
    exit(1)
}

func openStore(home: String, name: String = domain, schemaPath: String? = nil) -> PreferenceStore {
    var environment = ProcessInfo.processInfo.environment
    environment["PREFERENCES_HOME"] = home
    environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
    if let schemaPath { environment["PREFERENCES_SCHEMA_PATH"] = schemaPath }
    do throws(PreferencesError) {
        return try PreferenceStore(domain: name, configuration: .init(environment: environment, arguments: ["core-latency"]))
    } catch {
        fail("cannot open \(name): \(error)")
    }
}

func makeHome() -> String {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("core-latency-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
    do { try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true) } catch { fail("\(error)") }
    return home
}

/// p50, p99, p99.9 and p99.99 of nanosecond samples.
func percentiles(_ samples: [Int64]) -> [Int64] {
    let sorted = samples.sorted()
    return [0.5, 0.99, 0.999, 0.9999].map { sorted[min(sorted.count - 1, Int(Double(sorted.count) * $0))] }
}

func emit(_ row: String, _ name: String, _ values: [Int64]) {
    print("\(row)\t\(name)\t" + values.map(String.init).joined(separator: "\t"))
}

/// Times `body` `count` times, one call at a time.
@inline(never)
func timeEach(_ count: Int, _ body: () -> Void) -> [Int64] {
    var samples = [Int64](repeating: 0, count: count)
    for index in 0..<count {
        let start = monotonicNanoseconds()
        body()
        samples[index] = monotonicNanoseconds() - start
    }
    return samples
}

/// A flag and a counter shared with load threads.
final class Load: Sendable {
    let stop = Atomic(false)
    let operations = Atomic(0)
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

// MARK: reads

func reads(samples: Int) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    let store = openStore(home: home)
    for index in 0..<1_000 { store.set("value \(index)", forKey: "key\(index)") }
    store.set(true, forKey: "Enabled")
    store.set("Bonjour", forKey: "Greeting")
    do { try store.flush() } catch { fail("flush: \(error)") }
    let enabled = PreferenceKey("Enabled", default: false)
    let greeting = PreferenceKey("Greeting", default: "")
    var sink = 0

    func readRows(_ condition: String) {
        emit("read", "\(condition): clock only", percentiles(timeEach(samples) {}))
        emit("read", "\(condition): bool(forKey:)", percentiles(timeEach(samples) { if store.bool(forKey: "Enabled") { sink &+= 1 } }))
        emit("read", "\(condition): string(forKey:)", percentiles(timeEach(samples) { sink &+= store.string(forKey: "Greeting")?.utf8.count ?? 0 }))
        emit("read", "\(condition): typed Bool", percentiles(timeEach(samples) { if store[enabled] { sink &+= 1 } }))
        emit("read", "\(condition): typed String", percentiles(timeEach(samples) { sink &+= store[greeting].utf8.count }))
    }

    print("load\treads start\t\(loadAverage())")
    readRows("alone")

    // The same store sets and flushes in a loop on another thread.
    let load = Load()
    let writer = Thread {
        var value = 0
        while !load.stop.load(ordering: .relaxed) {
            value += 1
            store.set(value, forKey: "counter")
            try? store.flush()
            load.operations.add(1, ordering: .relaxed)
        }
    }
    writer.start()
    usleep(50_000)
    readRows("same store set+flush loop")
    load.stop.store(true, ordering: .relaxed)
    usleep(100_000)
    print("load\tflushes during reads\t\(load.operations.load(ordering: .relaxed))")

    // Another process writes the domain every millisecond.
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["writer", home]
    do { try child.run() } catch { fail("cannot start the writer: \(error)") }
    usleep(200_000)
    let before = store.integer(forKey: "remote")
    readRows("another process writing every 1 ms")
    let seen = store.integer(forKey: "remote") - before
    child.terminate()
    child.waitUntilExit()
    print("load\tremote writes seen during reads\t\(seen)")

    // Two threads reading at once: per-read time of batches of 1,000.
    func twoThreads(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let batches = max(samples / 1_000, 10)
        let results = Mutex<[Int64]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                var local: [Int64] = []
                for _ in 0..<batches {
                    let start = monotonicNanoseconds()
                    for _ in 0..<1_000 { body() }
                    local.append((monotonicNanoseconds() - start) / 1_000)
                }
                results.withLock { $0 += local }
                group.leave()
            }
        }
        group.wait()
        emit("two-threads", name, percentiles(results.withLock { $0 }))
    }
    twoThreads("bool(forKey:)") { _ = store.bool(forKey: "Enabled") }
    twoThreads("typed Bool") { _ = store[enabled] }

    // Sets with notifications on (the default configuration). Each sets a new value (a set
    // of the value a key has does nothing), counted rather than drawn with `Int.random`:
    // drawing one inside the timed region cost a quarter of a microsecond.
    var setValue = 0
    let alone = timeEach(samples / 10) { setValue &+= 1; store.set(setValue, forKey: "setKey") }
    emit("set", "set, alone", percentiles(alone))
    // The control: a busy loop as long as a set's median, timed the same way. On a virtual
    // machine the host takes the CPU away now and then (steal time); a window as wide as a
    // set is hit as often whatever runs in it, so this row's tail is the machine's.
    let median = alone.sorted()[alone.count / 2]
    emit("set", "control: busy loop as long as a set", percentiles(timeEach(samples / 10) {
        let end = monotonicNanoseconds() + median
        while monotonicNanoseconds() < end {}
    }))
    let flusher = Load()
    let flushThread = Thread {
        while !flusher.stop.load(ordering: .relaxed) {
            try? store.flush()
            flusher.operations.add(1, ordering: .relaxed)
        }
    }
    flushThread.start()
    usleep(50_000)
    emit("set", "set, while flushes run", percentiles(timeEach(samples / 10) { setValue &+= 1; store.set(setValue, forKey: "setKey") }))
    flusher.stop.store(true, ordering: .relaxed)
    usleep(100_000)
    print("load\treads end\t\(loadAverage())")
    if sink == 42 { print("") }
}

/// The other process of the third condition: a set and a durable flush every millisecond.
func writer(home: String) {
    let store = openStore(home: home)
    var value = 0
    while true {
        value += 1
        store.set(value, forKey: "remote")
        try? store.flush()
        usleep(1_000)
    }
}

// MARK: scale

/// The raw steps a flush of `bytes` must take at least: write a new file, fsync it, rename
/// it over the old one, fsync the directory.
func rawReplace(_ bytes: [UInt8], directory: String, name: String) {
    let temporary = "\(directory)/.raw.tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { fail("open \(temporary)") }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
    rename(temporary, "\(directory)/\(name)")
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    fsync(directoryFD)
    close(directoryFD)
}

func scale(repeats: Int) {
    print("load\tscale start\t\(loadAverage())")
    for size in [10, 100, 1_000, 10_000, 25_000] {
        let home = makeHome()
        let store = openStore(home: home)
        var values: [String: PropertyListValue] = [:]
        var plain: [String: Any] = [:]
        for index in 0..<size {
            values["k\(index)"] = .integer(PropertyListInteger(index))
            plain["k\(index)"] = index
        }
        store.setPersistentDomain(plain, forName: domain)
        do { try store.flush() } catch { fail("flush of \(size) keys: \(error)") }
        var flushes: [Int64] = []
        var raws: [Int64] = []
        for round in 0..<repeats {
            let start = monotonicNanoseconds()
            store.set(round, forKey: "k0")
            do { try store.flush() } catch { fail("flush: \(error)") }
            flushes.append(monotonicNanoseconds() - start)
            values["k0"] = .integer(PropertyListInteger(round))
            let rawStart = monotonicNanoseconds()
            let bytes: [UInt8]
            do { bytes = try BinaryPropertyListEncoder().encode(.dictionary(values)) } catch { fail("encode: \(error)") }
            rawReplace(bytes, directory: home, name: "raw.plist")
            raws.append(monotonicNanoseconds() - rawStart)
        }
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: "\(home)/\(domain).plist")[.size] as? Int) ?? 0
        emit("scale", "\(size)", [percentiles(flushes)[0], percentiles(raws)[0], Int64(fileSize)])
        try? FileManager.default.removeItem(atPath: home)
    }
    print("load\tscale end\t\(loadAverage())")
}

// MARK: history

/// What keeping a generation adds to a durable flush (`set` + `flush()`): two stores in two
/// homes, one keeping generations (by default 32 within 8 MiB) and one with a generation limit
/// of 0, flushed in alternation so both see the same machine; the history is filled past its
/// bound first, so every measured commit also prunes. Prints the median of each and their
/// ratio.
func historyCost(samples: Int, keys: Int, limit: Int) {
    func open(generations: Int) -> (store: PreferenceStore, home: String) {
        let home = makeHome()
        var environment = ProcessInfo.processInfo.environment
        environment["PREFERENCES_HOME"] = home
        environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
        do throws(PreferencesError) {
            let store = try PreferenceStore(
                domain: domain, configuration: .init(environment: environment, arguments: ["core-latency"], generationLimit: generations))
            var plain: [String: Any] = [:]
            for index in 0..<keys { plain["k\(index)"] = index }
            store.setPersistentDomain(plain, forName: domain)
            try store.flush()
            return (store, home)
        } catch {
            fail("cannot open \(domain): \(error)")
        }
    }
    let kept = open(generations: limit)
    let none = open(generations: 0)
    defer {
        try? FileManager.default.removeItem(atPath: kept.home)
        try? FileManager.default.removeItem(atPath: none.home)
    }
    func flush(_ store: PreferenceStore, _ value: Int) -> Int64 {
        let start = monotonicNanoseconds()
        store.set(value, forKey: "k0")
        do { try store.flush() } catch { fail("flush: \(error)") }
        return monotonicNanoseconds() - start
    }
    for round in 0..<40 {
        _ = flush(kept.store, -round)
        _ = flush(none.store, -round)
    }
    var withHistory: [Int64] = []
    var without: [Int64] = []
    for round in 0..<samples {
        // Alternating which goes first cancels any cost of going second.
        if round.isMultiple(of: 2) {
            withHistory.append(flush(kept.store, round))
            without.append(flush(none.store, round))
        } else {
            without.append(flush(none.store, round))
            withHistory.append(flush(kept.store, round))
        }
    }
    let generations = (try? FileManager.default.contentsOfDirectory(atPath: "\(kept.home)/.\(domain).plist.history").count) ?? 0
    let (a, b) = (percentiles(withHistory)[0], percentiles(without)[0])
    emit("history", "\(keys) keys, \(samples) flushes, \(generations) generations kept", [a, b])
    print("history\tratio\t" + String(format: "%.4f", Double(a) / Double(b)))
}

// MARK: history with private keys

/// What keeping a generation costs when the file holds a private value (issue 32): three
/// stores in three homes, each keeping 32 generations of a domain of `keys` integer keys plus
/// a `Token` string, flushed in alternation. `plain` has no schema (every generation a hard
/// link, as every commit was before private keys existed); `declared` has a schema declaring
/// `Token` private, so each commit writes its generation as a copy without the token;
/// `none-private` declares `Token` private but holds none, so it commits as `plain` does.
/// Prints the median durable flush of each and the ratios to `plain`.
func privateHistoryCost(samples: Int, keys: Int) {
    func open(declaring: Bool, holdingToken: Bool) -> (store: PreferenceStore, home: String) {
        let home = makeHome()
        var environment = ProcessInfo.processInfo.environment
        environment["PREFERENCES_HOME"] = home
        environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
        environment["PREFERENCES_SCHEMA_PATH"] = home + "/schemas"
        if declaring {
            let schema = PropertyListValue.dictionary(["Keys": .dictionary(["Token": .dictionary(["Type": .string("string"), "Private": .bool(true)])])])
            try? FileManager.default.createDirectory(atPath: home + "/schemas", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            _ = FileManager.default.createFile(atPath: home + "/schemas/\(domain).plist", contents: Data(XMLPropertyListEncoder().encode(schema)), attributes: [.posixPermissions: 0o644])
        }
        do throws(PreferencesError) {
            let store = try PreferenceStore(domain: domain, configuration: .init(environment: environment, arguments: ["core-latency"]))
            var plain: [String: Any] = [:]
            for index in 0..<keys { plain["k\(index)"] = index }
            if holdingToken { plain["Token"] = "ghp_0123456789abcdefghijklmnopqrstuvwxyz" }
            store.setPersistentDomain(plain, forName: domain)
            try store.flush()
            return (store, home)
        } catch {
            fail("cannot open \(domain): \(error)")
        }
    }
    let stores = [
        ("plain", open(declaring: false, holdingToken: true)),
        ("declared", open(declaring: true, holdingToken: true)),
        ("none-private", open(declaring: true, holdingToken: false)),
    ]
    defer { for (_, opened) in stores { try? FileManager.default.removeItem(atPath: opened.home) } }
    func flush(_ store: PreferenceStore, _ value: Int) -> Int64 {
        let start = monotonicNanoseconds()
        store.set(value, forKey: "k0")
        do { try store.flush() } catch { fail("flush: \(error)") }
        return monotonicNanoseconds() - start
    }
    // Past the bound first, so every measured commit also prunes (or recycles) one.
    for round in 0..<40 { for (_, opened) in stores { _ = flush(opened.store, -round) } }
    var times = Array(repeating: [Int64](), count: stores.count)
    for round in 0..<samples {
        // A different one goes first each round, so none always pays for going first.
        for offset in 0..<stores.count {
            let index = (round + offset) % stores.count
            times[index].append(flush(stores[index].1.store, round))
        }
    }
    let medians = times.map { percentiles($0)[0] }
    for (index, (name, opened)) in stores.enumerated() {
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: "\(opened.home)/.\(domain).plist.history").count) ?? 0
        emit("history-private", "\(name): \(keys) keys + Token, \(samples) flushes, \(kept) generations kept", [medians[index]])
    }
    print("history-private\tratio declared/plain\t" + String(format: "%.4f", Double(medians[1]) / Double(medians[0])))
    print("history-private\tratio none-private/plain\t" + String(format: "%.4f", Double(medians[2]) / Double(medians[0])))
}

// MARK: memory

func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func memory(domains: Int) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    // Files written by a first pass, so the measured pass only opens and reads them.
    for index in 0..<domains {
        let store = openStore(home: home, name: "\(domain).m\(index)")
        var values: [String: Any] = [:]
        for key in 0..<1_000 { values["key\(key)"] = "value \(key)" }
        store.setPersistentDomain(values, forName: "\(domain).m\(index)")
        do { try store.flush() } catch { fail("flush: \(error)") }
    }
    let before = residentBytes()
    var stores: [PreferenceStore] = []
    for index in 0..<domains {
        let store = openStore(home: home, name: "\(domain).w\(index)")
        store.addSuite(named: "\(domain).m\(index)")
        stores.append(store)
    }
    let after = residentBytes()
    emit("memory", "resident bytes per open 1,000-key domain", [Int64((after - before) / max(domains, 1))])
    withExtendedLifetime(stores) {}
}

// MARK: schema

/// A 200-key native schema: 50 each of ranged integers, strings with choices, booleans and
/// ranged reals, every key with a summary.
func schemaDocument() -> [UInt8] {
    var keys: [String: PropertyListValue] = [:]
    for index in 0..<50 {
        keys["Int\(index)"] = ["Type": "integer", "Default": 5, "Minimum": 0, "Maximum": 100, "Summary": .string("A ranged integer, \(index).")]
        keys["Text\(index)"] = ["Type": "string", "Default": "a", "Choices": ["a", "b", "c"], "Summary": .string("A choice, \(index).")]
        keys["Flag\(index)"] = ["Type": "boolean", "Default": false, "Summary": .string("A switch, \(index).")]
        keys["Real\(index)"] = ["Type": "real", "Default": 0.5, "Minimum": 0, "Maximum": 1, "Summary": .string("A ranged real, \(index).")]
    }
    return XMLPropertyListEncoder().encode(["Keys": .dictionary(keys)])
}

func schemaCosts(samples: Int) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    let schemas = home + "/schemas"
    let declaredDomain = "\(domain).declared", plainDomain = "\(domain).plain"
    do {
        try FileManager.default.createDirectory(atPath: schemas, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data(schemaDocument()).write(to: URL(fileURLWithPath: "\(schemas)/\(declaredDomain).plist"))
        chmod("\(schemas)/\(declaredDomain).plist", 0o644)
    } catch { fail("\(error)") }
    print("load\tschema start\t\(loadAverage())")
    // Opening: the same domain name each time (its file is shared in the process once open),
    // with the schema directory holding its 200-key schema, and with lookup off; alternated
    // so both see the same machine. Only the initialiser is timed.
    let opens = max(samples / 1_000, 50)
    var withSchema: [Int64] = [], withoutSchema: [Int64] = [], missingDirectory: [Int64] = []
    for _ in 0..<opens {
        var start = monotonicNanoseconds()
        let declared = openStore(home: home, name: declaredDomain, schemaPath: schemas)
        withSchema.append(monotonicNanoseconds() - start)
        start = monotonicNanoseconds()
        let plain = openStore(home: home, name: plainDomain, schemaPath: "")
        withoutSchema.append(monotonicNanoseconds() - start)
        start = monotonicNanoseconds()
        let searched = openStore(home: home, name: plainDomain, schemaPath: home + "/no-such-directory")
        missingDirectory.append(monotonicNanoseconds() - start)
        guard declared.schema?.keys.count == 200, plain.schema == nil, searched.schema == nil else { fail("schema not as expected") }
    }
    emit("schema", "open a store: schema lookup off", percentiles(withoutSchema))
    emit("schema", "open a store: no schema in a missing directory", percentiles(missingDirectory))
    emit("schema", "open a store: 200-key schema (parsed once per process, then reused)", percentiles(withSchema))
    // The first open of a schema's domain in a process reads and parses it: measured in fresh
    // processes, each timing its first store of a schema-less domain and then its first store
    // of the schema's domain (both after a warm-up store, which starts the watcher thread).
    var firstPlain: [Int64] = [], firstDeclared: [Int64] = []
    for round in 0..<max(opens / 10, 20) {
        let child = Process()
        let output = Pipe()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["first-open", home, schemas, declaredDomain, "\(domain).fresh\(round)"]
        child.standardOutput = output
        do { try child.run() } catch { fail("cannot start first-open: \(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int64($0) }
        guard numbers.count == 2 else { fail("first-open printed \(text)") }
        firstPlain.append(numbers[0])
        firstDeclared.append(numbers[1])
    }
    emit("schema", "first open in a process: no schema", percentiles(firstPlain))
    emit("schema", "first open in a process: 200-key schema (read, parse, resolve)", percentiles(firstDeclared))
    var parses: [Int64] = []
    for _ in 0..<opens {
        let start = monotonicNanoseconds()
        guard (try? PreferenceSchema(contentsOf: "\(schemas)/\(declaredDomain).plist")) != nil else { fail("schema parse") }
        parses.append(monotonicNanoseconds() - start)
    }
    emit("schema", "read and parse the 200-key schema alone (XML)", percentiles(parses))
    // The same schema as a binary property list, as a package may install it.
    let binaryPath = "\(schemas)/binary.plist"
    do {
        let value = try PropertyListValue(decodingAnyFormat: Data(schemaDocument()))
        try Data(BinaryPropertyListEncoder().encode(value)).write(to: URL(fileURLWithPath: binaryPath))
    } catch { fail("binary schema: \(error)") }
    var binaryParses: [Int64] = []
    for _ in 0..<opens {
        let start = monotonicNanoseconds()
        guard (try? PreferenceSchema(contentsOf: binaryPath)) != nil else { fail("binary schema parse") }
        binaryParses.append(monotonicNanoseconds() - start)
    }
    emit("schema", "read and parse the 200-key schema alone (binary)", percentiles(binaryParses))

    let declared = openStore(home: home, name: declaredDomain, schemaPath: schemas)
    let plain = openStore(home: home, name: plainDomain, schemaPath: "")
    for store in [declared, plain] {
        store.set(42, forKey: "Int7")
        do { try store.flush() } catch { fail("flush: \(error)") }
    }
    let typed = PreferenceKey("Int7", default: 0)
    var sink = 0
    emit("schema", "read integer(forKey:): no schema", percentiles(timeEach(samples) { sink &+= plain.integer(forKey: "Int7") }))
    emit("schema", "read integer(forKey:): declared key", percentiles(timeEach(samples) { sink &+= declared.integer(forKey: "Int7") }))
    emit("schema", "read typed Int: no schema", percentiles(timeEach(samples) { sink &+= plain[typed] }))
    emit("schema", "read typed Int: declared key", percentiles(timeEach(samples) { sink &+= declared[typed] }))
    // Sets alternate between two values, so none is a no-op; the writes coalesce in the
    // background. Interleaved in rounds, so a burst of load lands on both.
    let sets = max(samples / 10, 1_000)
    var plainSets: [Int64] = [], declaredSets: [Int64] = []
    var flip = 0
    for _ in 0..<10 {
        plainSets += timeEach(sets / 10) { flip &+= 1; plain.set(40 + flip & 1, forKey: "Int7") }
        declaredSets += timeEach(sets / 10) { flip &+= 1; declared.set(40 + flip & 1, forKey: "Int7") }
    }
    _ = sink
    // Written before the directory goes, so no exit-time flush finds it missing.
    try? declared.flush()
    try? plain.flush()
    emit("schema", "set(Int): no schema", percentiles(plainSets))
    emit("schema", "set(Int): declared, validated", percentiles(declaredSets))
    print("load\tschema end\t\(loadAverage())")
}

/// In a fresh process: a warm-up store, then the first store of a domain with no schema and
/// the first of the schema's domain; prints both times in nanoseconds.
func firstOpen(home: String, schemas: String, declaredDomain: String, plainDomain: String) {
    _ = openStore(home: home, name: "\(domain).warm-up", schemaPath: schemas)
    var start = monotonicNanoseconds()
    let plain = openStore(home: home, name: plainDomain, schemaPath: schemas)
    let plainTime = monotonicNanoseconds() - start
    start = monotonicNanoseconds()
    let declared = openStore(home: home, name: declaredDomain, schemaPath: schemas)
    let declaredTime = monotonicNanoseconds() - start
    guard plain.schema == nil, declared.schema?.keys.count == 200 else { fail("first-open: schema not as expected") }
    print("\(plainTime) \(declaredTime)")
}

/// Only sets, on a store with or without the 200-key schema: for instruction counts
/// (`valgrind --tool=callgrind core-latency set-cost declared 100000`), which the shared
/// machine's timing noise does not reach.
func setCost(declared: Bool, count: Int) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    let schemas = home + "/schemas"
    do {
        try FileManager.default.createDirectory(atPath: schemas, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data(schemaDocument()).write(to: URL(fileURLWithPath: "\(schemas)/\(domain).plist"))
        chmod("\(schemas)/\(domain).plist", 0o644)
    } catch { fail("\(error)") }
    let store = openStore(home: home, schemaPath: declared ? schemas : "")
    var flip = 0
    for _ in 0..<count {
        flip &+= 1
        store.set(40 + flip & 1, forKey: "Int7")
    }
    try? store.flush()
}

/// The costs of issue 18's commit path: the fresh-read check on every read, and a transaction.
func commitCosts(rounds: Int) {
    let home = makeHome()
    defer { try? FileManager.default.removeItem(atPath: home) }
    print("load\tcommits start\t\(loadAverage())")
    // Two domains, one whose counter is refused (a planted file of the wrong size beside it:
    // no runtime directory in this environment), so its reads skip the check.
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_RUNTIME_DIR"] = nil
    environment["PREFERENCES_HOME"] = home
    environment["PREFERENCES_SYSTEM_DIR"] = home + "/system"
    do {
        try Data([0]).write(to: URL(fileURLWithPath: "\(home)/.\(domain).unchecked.plist.commits"))
    } catch { fail("\(error)") }
    func open(_ name: String) -> PreferenceStore {
        do throws(PreferencesError) {
            return try PreferenceStore(domain: name, configuration: .init(environment: environment, arguments: ["core-latency"]))
        } catch { fail("cannot open \(name): \(error)") }
    }
    let checked = open("\(domain).checked")
    let unchecked = open("\(domain).unchecked")
    for store in [checked, unchecked] {
        store.set(42, forKey: "Int7")
        do { try store.flush() } catch { fail("flush: \(error)") }
    }
    // Reads: a million in a loop, timed as a whole (a single read is shorter than the clock's
    // own cost), alternated so both see the same machine; the median of the rounds per read.
    var sink = 0
    func perRead(_ store: PreferenceStore) -> Int64 {
        let count = 1_000_000
        let start = monotonicNanoseconds()
        for _ in 0..<count { sink &+= store.integer(forKey: "Int7") }
        return (monotonicNanoseconds() - start) * 1000 / Int64(count)
    }
    var withCheck: [Int64] = [], withoutCheck: [Int64] = []
    for _ in 0..<max(rounds, 5) {
        withCheck.append(perRead(checked))
        withoutCheck.append(perRead(unchecked))
    }
    _ = sink
    func median(_ values: [Int64]) -> Int64 { values.sorted()[values.count / 2] }
    // Picoseconds per read, so a difference below a nanosecond shows.
    emit("commits", "read integer(forKey:), commit counter checked (ps per read, median of rounds)", [median(withCheck)])
    emit("commits", "read integer(forKey:), no counter (ps per read, median of rounds)", [median(withoutCheck)])
    // Durable commits: one key set and flushed, against a transaction of ten keys.
    var oneKey: [Int64] = [], tenKeys: [Int64] = []
    for round in 0..<max(rounds, 20) {
        var start = monotonicNanoseconds()
        checked.set(round, forKey: "single")
        do { try checked.flush() } catch { fail("flush: \(error)") }
        oneKey.append(monotonicNanoseconds() - start)
        start = monotonicNanoseconds()
        do {
            try checked.transaction { t in
                for key in 0..<10 { t.set(round &+ key, forKey: "t\(key)") }
            }
        } catch { fail("transaction: \(error)") }
        tenKeys.append(monotonicNanoseconds() - start)
    }
    emit("commits", "set one key + flush() (durable)", percentiles(oneKey))
    emit("commits", "transaction of 10 keys (durable, one commit)", percentiles(tenKeys))
    print("load\tcommits end\t\(loadAverage())")
}

// MARK: main

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "reads": reads(samples: arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000)
case "scale": scale(repeats: arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20)
case "memory": memory(domains: arguments.count > 2 ? Int(arguments[2]) ?? 50 : 50)
case "first-open":
    guard arguments.count > 5 else { fail("first-open HOME SCHEMAS DECLARED-DOMAIN PLAIN-DOMAIN") }
    firstOpen(home: arguments[2], schemas: arguments[3], declaredDomain: arguments[4], plainDomain: arguments[5])
case "set-cost": setCost(declared: arguments.count > 2 && arguments[2] == "declared", count: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000)
case "commits": commitCosts(rounds: arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200)
case "history":
    historyCost(
        samples: arguments.count > 2 ? Int(arguments[2]) ?? 2_000 : 2_000, keys: arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100,
        limit: arguments.count > 4 ? Int(arguments[4]) ?? 32 : 32)
case "history-private":
    privateHistoryCost(samples: arguments.count > 2 ? Int(arguments[2]) ?? 2_000 : 2_000, keys: arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100)
case "schema": schemaCosts(samples: arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000)
case "catch-up":
    catchUpRead(
        samples: arguments.count > 2 ? Int(arguments[2]) ?? 3_000 : 3_000, observers: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0,
        polling: arguments.count > 4 && arguments[4] == "polling")
case "catch-up-writer":
    guard arguments.count > 2 else { fail("catch-up-writer HOME") }
    catchUpWriter(home: arguments[2])
case "writer":
    guard arguments.count > 2 else { fail("writer HOME") }
    writer(home: arguments[2])
default:
    fail("usage: core-latency reads SAMPLES | scale REPEATS | memory DOMAINS | schema SAMPLES | history SAMPLES [KEYS] | catch-up SAMPLES [OBSERVERS [polling]]")
}
