// The purge workload of the power-loss harness (Tests/Scripts/power-loss.sh --workload purge):
// a history whose every generation holds a secret, then `PreferenceFiles.purge(keys:at:)`
// between two trace markers, and the checker of its crash states.
import Foundation
import Glibc
import Preferences
import PropertyList

/// The `secret` value of the purge workload's commit `n`: recognisable in any file's bytes
/// by its prefix, ``purgeSecretPrefix``.
func purgeSecret(_ n: Int) -> String { "purge-secret-\(n)-c0ffee" }

/// What every secret of the purge workload starts with.
let purgeSecretPrefix = "purge-secret-"

/// The name of the copy of the domain file the purge workload sets aside as corrupt, and
/// its bytes: not a property list, holding the first commit's secret.
let purgeCorruptSuffix = ".corrupt-20260101T000000"
let purgeCorruptBytes = Array("not a property list, set aside as corrupt: \(purgeSecret(1))\n".utf8)

/// `power-loss-purger DOMAIN COUNT`: COUNT commits to DOMAIN with a store that keeps every
/// generation, commit n (a transaction) setting `secret` to ``purgeSecret(_:)`` of n and
/// `keep` to n, so the history holds generations 1 to COUNT-1 (generation n is commit n's
/// file); a copy of the domain file set aside as corrupt holding the first secret beside it.
/// Then `access` on `/swift-preferences-purge/start`, `PreferenceFiles.purge(keys:
/// ["secret"], at:)`, and `access` on `/swift-preferences-purge/done`: the harness cuts the
/// trace between the markers, and from the second on no file may hold a secret.
func powerLossPurger(_ arguments: [String]) {
    guard arguments.count == 2, let count = Int(arguments[1]), count >= 2 else { fail("power-loss-purger DOMAIN COUNT (COUNT >= 2)") }
    let domain = arguments[0]
    let configuration = PreferenceStore.Configuration(generationLimit: count + 8)
    let preferences: PreferenceStore
    do throws(PreferencesError) {
        preferences = try PreferenceStore(domain: domain, configuration: configuration)
    } catch {
        fail("cannot open \(domain): \(error)")
    }
    for n in 1...count {
        // One commit each (two sets could be two: a background flush may run between them),
        // durable when it returns.
        do {
            try preferences.transaction { transaction in
                transaction.set(purgeSecret(n), forKey: "secret")
                transaction.set(n, forKey: "keep")
            }
        } catch {
            fail("transaction: \(error)")
        }
    }
    let files = PreferenceFiles(configuration: configuration)
    let location: PersistentDomainLocation
    do throws(PreferencesError) { location = try .named(domain) } catch { fail("\(domain): \(error)") }
    guard let path = files.filePath(of: location) else { fail("no file path for \(domain)") }
    // As the store sets a corrupt file aside (a copy beside it, the same mode).
    let descriptor = open(path + purgeCorruptSuffix, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0, purgeCorruptBytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == purgeCorruptBytes.count,
        fsync(descriptor) == 0, close(descriptor) == 0
    else { fail("could not write \(path + purgeCorruptSuffix)") }
    _ = access("/swift-preferences-purge/start", F_OK)
    do throws(PreferencesError) {
        let purged = try files.purge(keys: ["secret"], at: location)
        // Every generation and the corrupt copy: a purge that missed one is a failed run.
        guard purged == count + 1 else { fail("the purge rewrote \(purged) files, not \(count + 1)") }
    } catch {
        fail("purge: \(error)")
    }
    _ = access("/swift-preferences-purge/done", F_OK)
}

/// `power-loss-purge-check DOMAIN COUNT LIST`: LIST names one crash state of the purge
/// workload per line, `PREFERENCES_HOME`, or `PREFERENCES_HOME<tab>ROOT` for a state cut after
/// the purge returned (ROOT: the state's whole home). For each, prints one JSON line: what
/// ``openAndWrite(_:home:)`` reports, with `values` left out, and `purge`, what is wrong
/// with the state's files, read before the store opens:
/// - every file in the history directory named `N.plist` decodes as a binary property list
///   holding `keep` = N and, if anything else, `secret` = ``purgeSecret(_:)`` of N;
///   generations 1 to COUNT-1 are all there, COUNT may be (the purge's commit keeps it);
/// - no other name is there but a copy's temporary file, `.N.plist.<anything>.tmp`, and the
///   library lists exactly the `N.plist` files as generations, none with a problem;
/// - the copy set aside as corrupt is there, as it was or with its secret overwritten, its
///   length unchanged;
/// - the domain holds `keep` = COUNT and, if anything else, `secret` = ``purgeSecret(_:)``
///   of COUNT;
/// - with ROOT, no file under it holds ``purgeSecretPrefix`` (in UTF-8 or UTF-16).
func powerLossPurgeCheck(_ arguments: [String]) {
    guard arguments.count == 3, let count = Int(arguments[1]),
        let list = try? String(contentsOfFile: arguments[2], encoding: .utf8)
    else {
        fail("power-loss-purge-check DOMAIN COUNT LIST")
    }
    let domain = arguments[0]
    for line in list.split(separator: "\n").map(String.init) where !line.isEmpty {
        let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
        let home = fields[0]
        var problems = purgeStateProblems(domain: domain, count: count, home: home)
        if fields.count == 2 {
            problems += secretHolders(under: fields[1]).map { "\($0) still holds a secret after the purge returned" }
        }
        var report = openAndWrite(domain, home: home)
        if let values = report.removeValue(forKey: "values") as? [String: Any] {
            if values["keep"] as? Int != count {
                problems.append("the domain's keep is \(values["keep"].map { "\($0)" } ?? "missing"), not \(count)")
            }
            if let secret = values["secret"], secret as? String != purgeSecret(count) {
                problems.append("the domain's secret is \(secret), neither \(purgeSecret(count)) nor absent")
            }
            if let other = values.keys.first(where: { $0 != "keep" && $0 != "secret" }) {
                problems.append("the domain holds \(other), which no commit set")
            }
        }
        report["purge"] = problems
        let json = (try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])) ?? Data("{}".utf8)
        say(String(decoding: json, as: UTF8.self))
    }
}

/// What is wrong with the history directory and the corrupt copy of a purge crash state
/// (see ``powerLossPurgeCheck(_:)``).
func purgeStateProblems(domain: String, count: Int, home: String) -> [String] {
    let environment = ["PREFERENCES_HOME": home, "PREFERENCES_SYSTEM_DIR": home + "/system", "HOME": home]
    let files = PreferenceFiles(configuration: .init(environment: environment, arguments: ["power-loss-purge-check"]))
    guard let location = try? PersistentDomainLocation.named(domain), let path = files.filePath(of: location) else {
        return ["no file path for \(domain)"]
    }
    let file = URL(fileURLWithPath: path)
    let history = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).history").path
    var problems: [String] = []
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: history) else { return ["no history directory \(history)"] }
    var generations: Set<Int> = []
    for name in names.sorted() {
        if name.hasSuffix(".plist"), let number = Int(name.dropLast(".plist".count)), String(number) == name.dropLast(".plist".count) {
            generations.insert(number)
            problems += generationProblems(number, path: history + "/" + name)
        } else if name.hasPrefix("."), name.hasSuffix(".tmp"),
            let dot = name.dropFirst().firstIndex(of: "."), Int(name[name.index(after: name.startIndex)..<dot]) != nil,
            name[dot...].hasPrefix(".plist.")
        {
            continue  // A copy's temporary file, left by the cut.
        } else {
            problems.append("\(name) in the history directory is neither a generation nor a copy's temporary file")
        }
    }
    if count > 1, let missing = (1..<count).first(where: { !generations.contains($0) }) {
        problems.append("generation \(missing) is missing")
    }
    if let extra = generations.first(where: { $0 < 1 || $0 > count }) {
        problems.append("generation \(extra) was never kept")
    }
    // The library's own listing: the same generations, each usable; a temporary file is none.
    do throws(PreferencesError) {
        let listed = try files.generations(at: location).filter { !$0.isCurrent }
        if Set(listed.map(\.number)) != generations {
            problems.append("the library lists generations \(listed.map(\.number).sorted()), the directory holds \(generations.sorted())")
        }
        for generation in listed where generation.problem != nil {
            problems.append("the library cannot use generation \(generation.number): \(generation.problem!)")
        }
    } catch {
        problems.append("the library could not list the generations: \(error)")
    }
    // The copy set aside as corrupt: as it was, or with the secret's bytes overwritten.
    let scrubbed = Array("not a property list, set aside as corrupt: ".utf8) + [UInt8](repeating: 0, count: purgeSecret(1).utf8.count) + [0x0A]
    if let bytes = FileManager.default.contents(atPath: path + purgeCorruptSuffix).map([UInt8].init) {
        if bytes != purgeCorruptBytes && bytes != scrubbed {
            problems.append("the corrupt copy holds \(bytes.count) bytes that are neither its own nor its own scrubbed")
        }
    } else {
        problems.append("the corrupt copy \(path + purgeCorruptSuffix) is gone")
    }
    return problems
}

/// What is wrong with generation `number` at `path`: it must decode as a whole, hold `keep`
/// = `number`, and `secret`, if it holds one, as commit `number` set it.
func generationProblems(_ number: Int, path: String) -> [String] {
    guard let bytes = FileManager.default.contents(atPath: path) else { return ["generation \(number) cannot be read"] }
    let decoded: PropertyListValue
    do throws(PropertyListError) {
        decoded = try BinaryPropertyListDecoder().decode([UInt8](bytes))
    } catch {
        return ["generation \(number) (\(bytes.count) bytes) does not decode: \(error)"]
    }
    guard case .dictionary(let values) = decoded else { return ["generation \(number) is not a dictionary"] }
    var problems: [String] = []
    if values["keep"] != .integer(PropertyListInteger(number)) {
        problems.append("generation \(number) holds keep \(values["keep"].map { "\($0)" } ?? "missing"), not \(number)")
    }
    if let secret = values["secret"], secret != .string(purgeSecret(number)) {
        problems.append("generation \(number) holds secret \(secret), neither \(purgeSecret(number)) nor absent")
    }
    if let other = values.keys.first(where: { $0 != "keep" && $0 != "secret" }) {
        problems.append("generation \(number) holds \(other), which no commit set")
    }
    return problems
}

/// The files under `root` (hidden ones too) holding ``purgeSecretPrefix``, in UTF-8 or
/// UTF-16 big- or little-endian.
func secretHolders(under root: String) -> [String] {
    let ascii = Array(purgeSecretPrefix.utf8)
    let forms = [ascii, ascii.flatMap { [0, $0] }, ascii.flatMap { [$0, 0] }]
    var holders: [String] = []
    guard let walker = FileManager.default.enumerator(atPath: root) else { return ["\(root) (cannot be listed)"] }
    while let relative = walker.nextObject() as? String {
        let path = root + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
        guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init) else {
            holders.append("\(relative) (cannot be read)")
            continue
        }
        if forms.contains(where: { bytes.holds($0) }) { holders.append(relative) }
    }
    return holders
}

extension [UInt8] {
    /// Whether `pattern` occurs in these bytes.
    func holds(_ pattern: [UInt8]) -> Bool {
        guard count >= pattern.count else { return false }
        return (0...(count - pattern.count)).contains { self[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
