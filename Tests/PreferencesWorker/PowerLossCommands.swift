import Synchronization
// Commands for the power-loss harness (Tests/Scripts/power-loss.sh): a workload whose
// file-system calls are recorded, with markers in the trace where each flush returned, and a
// checker that opens crash states with the real library. See main.swift for the list.
import Foundation
import Glibc
import Logging
import Preferences
import PropertyList

/// `power-loss-writer DOMAIN WRITER COUNT`: COUNT rounds on DOMAIN with a store that keeps
/// at most 2 generations (so every commit prunes one and writes its new version over that
/// generation's file, the closest to the newest a commit recycles): round n sets `wWRITER` to n and flushes; every
/// third round is also a transaction setting `tWRITERa` and `tWRITERb` to n together. After a
/// flush or transaction returns, `access` on `/swift-preferences-flushed/WRITER/KEY/n`
/// marks the point in the trace from which the value must survive a power cut.
func powerLossWriter(_ arguments: [String]) {
    guard arguments.count == 3, let count = Int(arguments[2]) else { fail("power-loss-writer DOMAIN WRITER COUNT") }
    let (domain, writer) = (arguments[0], arguments[1])
    let preferences: PreferenceStore
    do throws(PreferencesError) {
        preferences = try PreferenceStore(domain: domain, configuration: .init(generationLimit: 2))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
    func mark(_ key: String, _ value: Int) {
        _ = access("/swift-preferences-flushed/\(writer)/\(key)/\(value)", F_OK)
    }
    for round in 1...max(count, 1) {
        preferences.set(round, forKey: "w\(writer)")
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
        mark("w\(writer)", round)
        if round % 3 == 0 {
            do {
                try preferences.transaction { transaction in
                    transaction.set(round, forKey: "t\(writer)a")
                    transaction.set(round, forKey: "t\(writer)b")
                }
            } catch {
                fail("transaction: \(error)")
            }
            mark("t\(writer)a", round)
        }
    }
}

/// `power-loss-check DOMAIN LIST`: LIST names one crash state's home directory per line. For
/// each, opens DOMAIN with `PREFERENCES_HOME` there (no runtime directory, so the commit
/// counter is the one beside the file), prints one JSON line with the values the store reads
/// (or why it could not open) and the files it could not use, then sets a key and flushes,
/// and says whether that worked: a crash state must never keep the store from opening or
/// writing.
func powerLossCheck(_ arguments: [String]) {
    guard arguments.count == 2, let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
        fail("power-loss-check DOMAIN LIST")
    }
    let domain = arguments[0]
    for home in list.split(separator: "\n").map(String.init) where !home.isEmpty {
        var report = openAndWrite(domain, home: home)
        if let values = report["values"] as? [String: Any] {
            var numbers: [String: Int] = [:]
            for (key, value) in values {
                if let number = value as? Int { numbers[key] = number }
            }
            report["values"] = numbers
        }
        let line = (try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])) ?? Data("{}".utf8)
        say(String(decoding: line, as: UTF8.self))
    }
}

/// Opens DOMAIN in the crash state at `home` as ``powerLossCheck(_:)`` does: the report's
/// `values` (the domain's values as read, for the caller to judge and turn into JSON), `problems` (the files the store could not use), `log` (its warnings and
/// errors by MESSAGE_ID) and `write` ("ok" if a set and flush after opening worked), or
/// `error` if it did not open.
func openAndWrite(_ domain: String, home: String) -> [String: Any] {
    var report: [String: Any] = ["home": home]
    let environment = ["PREFERENCES_HOME": home, "PREFERENCES_SYSTEM_DIR": home + "/system", "HOME": home]
    // Every warning or error of the state's store, by MESSAGE_ID: a store that opened may
    // still have refused its commit counter (fresh reads off) or left a file unusable.
    CountingLogHandler.entries.withLock { $0.removeAll() }
    let logger = Logger(label: "power-loss-check") { _ in CountingLogHandler() }
    do throws(PreferencesError) {
        let store = try PreferenceStore(
            domain: domain, configuration: .init(environment: environment, arguments: ["power-loss-check"], logger: logger))
        report["values"] = store.persistentDomain(forName: domain) ?? [String: Any]()
        // A file the store could not use (corrupt with no good generation to recover from,
        // a counter or lock it refused as unsafe) is a failed state.
        report["problems"] = store.fileProblems.map { "\($0)" }
        store.set(1, forKey: "checked")
        do throws(PreferencesError) {
            try store.flush()
            report["write"] = "ok"
        } catch {
            report["write"] = "\(error)"
        }
    } catch {
        report["error"] = "\(error)"
    }
    report["log"] = CountingLogHandler.entries.withLock { $0 }
    return report
}

/// `power-loss-setter DOMAIN COUNT`: COUNT times, `access` on `/swift-preferences-set/n`,
/// then `set` n with no `flush()`, then 50 ms of nothing: the trace shows how long after a
/// `set` the background write made the value durable (its rename, then the directory's
/// `fsync`).
func powerLossSetter(_ arguments: [String]) {
    guard arguments.count == 2, let count = Int(arguments[1]) else { fail("power-loss-setter DOMAIN COUNT") }
    let preferences = store(arguments[0])
    for round in 1...max(count, 1) {
        _ = access("/swift-preferences-set/\(round)", F_OK)
        preferences.set(round, forKey: "s")
        usleep(50_000)
    }
}
