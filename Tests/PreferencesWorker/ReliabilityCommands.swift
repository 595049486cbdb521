// Commands for the reliability tests (ReliabilityTests and Tests/Scripts/crash-*.sh):
// writers to kill, lock holders to stop, and fault scenarios run inside a private mount
// namespace. See main.swift for the list.
import Foundation
import Glibc
import Logging
import Preferences
import PropertyList
import Synchronization

/// Writes a line to standard output at once, unbuffered: a test reading it may kill this
/// process the next moment, and what it has read must have happened.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// The values of generation `generation` of the `flush-loop` writer: one key, "state", a
/// dictionary whose every entry holds the generation. One key, because each `set`
/// schedules a background flush, so separate keys set one after another may rightly reach
/// the disk in different flushes. The payload's size varies, so consecutive files differ
/// in length too.
func generationValues(_ generation: Int, keys: Int) -> [String: PropertyListValue] {
    var state: [String: PropertyListValue] = ["generation": .integer(generation)]
    for key in 0..<keys { state["k\(key)"] = .integer(generation) }
    state["payload"] = .data(Data(repeating: UInt8(truncatingIfNeeded: generation), count: 100 + (generation % 13) * 700))
    return ["state": .dictionary(state)]
}

/// `flush-loop DOMAIN KEYS [COUNT]`: from the generation on disk plus one, sets every key
/// of the next generation and flushes, printing each generation once its flush returned;
/// forever, or COUNT times. `flush-once` writes one generation with the atomic
/// read-modify-write on the main thread, between two `access` calls on marker paths, so a
/// trace shows exactly which system calls the write made.
func flushLoop(_ arguments: [String], markers: Bool) {
    guard arguments.count >= 2, let keys = Int(arguments[1]) else { fail("flush-loop DOMAIN KEYS [COUNT]") }
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 1 : (markers ? 1 : Int.max)
    let preferences = store(arguments[0])
    var generation = preferences.value(forKey: "state")?["generation"]?.integerValue?.intValue ?? 0
    say("start \(generation)")
    for _ in 0..<count {
        generation += 1
        let values = generationValues(generation, keys: keys)
        if markers {
            // The locked read-modify-write runs on this thread, where the trace counts
            // calls; a set would leave the flush to whichever thread got there first.
            _ = access("/swift-preferences-flush-begin", F_OK)
            do throws(PreferencesError) {
                try preferences.modify(forKey: "state") { $0 = values["state"] }
            } catch {
                fail("modify: \(error)")
            }
            _ = access("/swift-preferences-flush-end", F_OK)
        } else {
            for (key, value) in values { preferences.setValue(value, forKey: key) }
            do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
        }
        say("committed \(generation)")
    }
}

/// `hold-lock PATH MILLISECONDS`: takes `flock(LOCK_EX)` on PATH, prints "locked", holds it
/// for MILLISECONDS (time spent stopped counts), and exits.
func holdLock(_ arguments: [String]) {
    guard arguments.count == 2, let milliseconds = Int(arguments[1]) else { fail("hold-lock PATH MILLISECONDS") }
    let descriptor = open(arguments[0], O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else { fail("cannot lock \(arguments[0]): errno \(errno)") }
    say("locked")
    // Ends early if the test process that started it has gone (its parent changes), so an
    // orphan does not hold the lock for the rest of its time.
    let parent = getppid()
    let deadline = ContinuousClock.now + .milliseconds(milliseconds)
    while ContinuousClock.now < deadline && getppid() == parent { usleep(5_000) }
}

/// `remove-keys DOMAIN PREFIX COUNT`: removes PREFIX0..PREFIX(COUNT-1), a flush after each.
func removeKeys(_ arguments: [String]) {
    guard arguments.count == 3, let count = Int(arguments[2]) else { fail("remove-keys DOMAIN PREFIX COUNT") }
    let preferences = store(arguments[0])
    for index in 0..<count {
        preferences.removeObject(forKey: "\(arguments[1])\(index)")
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    }
}

/// A log handler that counts entries at warning level and above, keeps each as
/// "MESSAGE_ID message" (the power-loss checker reads them) and echoes them to stderr.
struct CountingLogHandler: LogHandler {
    static let count = Atomic<Int>(0)
    static let entries = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        guard event.level >= .warning else { return }
        Self.count.add(1, ordering: .relaxed)
        let id = event.metadata?["MESSAGE_ID"].map { "\($0)" } ?? "-"
        Self.entries.withLock { $0.append("\(id) \(event.message)") }
        FileHandle.standardError.write(Data("log \(event.level): \(event.message)\n".utf8))
    }
}

/// A store whose problems are counted by ``CountingLogHandler``.
func countingStore(_ domain: String) -> PreferenceStore {
    let logger = Logger(label: "worker") { _ in CountingLogHandler() }
    do throws(PreferencesError) {
        return try PreferenceStore(domain: domain, configuration: .init(logger: logger))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
}

/// The names of DOMAIN's temporary files in DIRECTORY and its staging directory. Only the
/// domain file's own: the process's watcher thread may be making a commit counter (another
/// domain's too) under a temporary name of its own at the moment the directory is listed.
func temporaryFiles(_ directory: String, domain: String) -> [String] {
    [directory, directory + "/.swift-preferences-staging"].flatMap { folder in
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".\(domain).plist.tmp-") }
    }
}

/// `enospc DOMAIN DIRECTORY`: run with PREFERENCES_HOME=DIRECTORY on a small tmpfs. Writes
/// 50 keys, fills the file system, sets a 64 KiB value and flushes (twice), then frees the
/// space and flushes again, printing what it finds at each step for the test to check.
func enospc(_ arguments: [String]) {
    guard arguments.count == 2 else { fail("enospc DOMAIN DIRECTORY") }
    let (domain, directory) = (arguments[0], arguments[1])
    let path = "\(directory)/\(domain).plist"
    let preferences = countingStore(domain)
    for index in 0..<50 { preferences.set("value-\(index)", forKey: "k\(index)") }
    do throws(PreferencesError) { try preferences.flush() } catch { fail("first flush: \(error)") }
    let before = FileManager.default.contents(atPath: path)
    // Fill the file system to the last byte.
    let filler = "\(directory)/filler"
    let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let chunk = [UInt8](repeating: 0xAA, count: 4096)
    var filled = 0
    while true {
        let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written <= 0 { break }
        filled += written
    }
    var single: UInt8 = 0
    while write(descriptor, &single, 1) == 1 { filled += 1 }
    say("filled \(filled) errno \(errno)")
    preferences.set(Data(repeating: 7, count: 64 << 10), forKey: "big")
    for attempt in 1...2 {
        do throws(PreferencesError) {
            try preferences.flush()
            say("flush \(attempt) succeeded")
        } catch {
            say("flush \(attempt) failed \(error.code) errno \(error.errno ?? 0): \(error)")
        }
    }
    say("identical \(FileManager.default.contents(atPath: path) == before)")
    say("temporaries \(temporaryFiles(directory, domain: domain).count)")
    say("pending \(preferences.data(forKey: "big")?.count ?? 0)")
    close(descriptor)
    unlink(filler)
    do throws(PreferencesError) {
        try preferences.flush()
        say("flush after freeing succeeded")
    } catch {
        say("flush after freeing failed: \(error)")
    }
    let onDisk = FileManager.default.contents(atPath: path).flatMap { try? BinaryPropertyListDecoder().decode($0).dictionaryValue }
    say("keys \(onDisk?.count ?? 0) big \(onDisk?["big"].flatMap { if case .data(let d) = $0 { d.count } else { nil } } ?? 0)")
    say("temporaries \(temporaryFiles(directory, domain: domain).count)")
    say("warnings \(CountingLogHandler.count.load(ordering: .relaxed))")
}

/// `read-only DOMAIN DIRECTORY FLUSHES`: run with PREFERENCES_HOME=DIRECTORY, mounted
/// read-only, holding a domain file. Reads a key, then sets one and flushes FLUSHES times,
/// printing the outcomes and how many warnings were logged.
func readOnly(_ arguments: [String]) {
    guard arguments.count == 3, let flushes = Int(arguments[2]) else { fail("read-only DOMAIN DIRECTORY FLUSHES") }
    let preferences = countingStore(arguments[0])
    say("read \(preferences.string(forKey: "existing") ?? "(nil)")")
    var failures: [String: Int] = [:]
    for index in 0..<flushes {
        preferences.set(index, forKey: "new")
        do throws(PreferencesError) {
            try preferences.flush()
            failures["succeeded", default: 0] += 1
        } catch {
            failures["\(error.code) errno \(error.errno ?? 0)", default: 0] += 1
            if index == 0 { say("error \(error)") }
        }
    }
    for (outcome, count) in failures.sorted(by: { $0.key < $1.key }) { say("outcome \(outcome): \(count)") }
    say("still reads \(preferences.integer(forKey: "new")) and \(preferences.string(forKey: "existing") ?? "(nil)")")
    say("temporaries \(temporaryFiles(arguments[1], domain: arguments[0]).count)")
    say("warnings \(CountingLogHandler.count.load(ordering: .relaxed))")
}

/// `flush-retry DOMAIN`: sets a key and flushes until a flush succeeds (at most 5 times),
/// printing each outcome; for a run with a failure injected into the first flush.
func flushRetry(_ arguments: [String]) {
    guard arguments.count == 1 else { fail("flush-retry DOMAIN") }
    let preferences = countingStore(arguments[0])
    preferences.set("value", forKey: "retried")
    for attempt in 1...5 {
        do throws(PreferencesError) {
            try preferences.flush()
            say("attempt \(attempt) succeeded")
            return
        } catch {
            say("attempt \(attempt) failed: \(error)")
        }
    }
    fail("no flush succeeded")
}

/// `transaction-loop DOMAIN KEYS`: from the generation on disk plus one, commits generation
/// after generation as one transaction each (`state` as `flush-loop` writes it, and `t0` …
/// `t<KEYS-1>` set to the generation), printing each once it is committed; forever.
func transactionLoop(_ arguments: [String]) {
    guard arguments.count == 2, let keys = Int(arguments[1]) else { fail("transaction-loop DOMAIN KEYS") }
    let preferences = store(arguments[0])
    var generation = preferences.value(forKey: "state")?["generation"]?.integerValue?.intValue ?? 0
    say("start \(generation)")
    while true {
        generation += 1
        let values = generationValues(generation, keys: 4)
        do {
            try preferences.transaction { t in
                for (key, value) in values { t.setValue(value, forKey: key) }
                for key in 0..<keys { t.set(generation, forKey: "t\(key)") }
            }
        } catch {
            fail("transaction: \(error)")
        }
        say("committed \(generation)")
    }
}

/// `undo-loop DOMAIN`: undoes the domain's last commit again and again (each undo is itself
/// a commit, so the domain swings between its last two versions), printing "restored N" with
/// the generation each undo brought back; forever.
func undoLoop(_ arguments: [String]) {
    guard arguments.count == 1 else { fail("undo-loop DOMAIN") }
    let files = PreferenceFiles()
    let location: PersistentDomainLocation
    do throws(PreferencesError) { location = try .named(arguments[0]) } catch { fail("\(error)") }
    say("start")
    while true {
        do throws(PreferencesError) {
            let restored = try files.undo(at: location)
            say("restored \(restored.number)")
        } catch {
            fail("undo: \(error)")
        }
    }
}
