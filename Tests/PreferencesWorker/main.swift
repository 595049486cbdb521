// A separate process for the cross-process tests: real processes, not threads, write the
// same domain. It locates files through PREFERENCES_HOME like any program would.
//
//   PreferencesWorker set-keys DOMAIN PREFIX COUNT [EVERY]  set PREFIX0..PREFIXn, flush after
//                                                        every EVERY-th (default 1) and at the end;
//                                                        prints "longest-flush-ms N" at the end
//   PreferencesWorker increment DOMAIN KEY COUNT         COUNT atomic increments of KEY
//   PreferencesWorker set-and-exit DOMAIN KEY VALUE      set one string and exit without flushing
//   PreferencesWorker read DOMAIN KEY                    print string(forKey:) or "(nil)"
//   PreferencesWorker foundation-write DOMAIN KEY VALUE... set string values with corelibs-Foundation's own
//                                                        UserDefaults(suiteName: DOMAIN), synchronize, print its file
//   PreferencesWorker read-lazily DOMAIN KEY             open with fileWatching .whenObserved, read KEY, print
//                                                        "read VALUE inotify N watcher N"; for each line on stdin
//                                                        read KEY again and print "again VALUE ..." likewise; at
//                                                        end of input observe KEY and print "observed ..." 
//   PreferencesWorker user-defaults-standard DOMAIN KEY VALUE  set KEY through `PreferencesUserDefaults.standard`
//                                                        typed `UserDefaults` (its domain must be DOMAIN,
//                                                        from PREFERENCES_DOMAIN), synchronize, print its class
//                                                        and the domain `PreferencesUserDefaults(suiteName: nil)` opens
//   PreferencesWorker set-pairs DOMAIN COUNT             set `first` and `pair` → `second` to i in one atomic
//                                                        write per i in 1...COUNT
//   PreferencesWorker burst DOMAIN KEY COUNT             set KEY to v0...v(COUNT-1) as fast as possible
//   PreferencesWorker growth DOMAIN-PREFIX COUNT          open, observe and release COUNT stores; print
//                                                        "descriptors A B threads C D" (before, after)
//   PreferencesWorker watch-files PATH...                report watcher calls until stdin closes
//   PreferencesWorker watch-churn DIRECTORY COUNT        count fds and threads around COUNT watches
//   PreferencesWorker log factory|direct MESSAGE [K=V...] log MESSAGE at error through the journald handler
//   PreferencesWorker size-storm DOMAIN COUNT            cross the soft limit, then COUNT refused sets, flush,
//                                                        and stay until the rate limiter's window has ended
//   PreferencesWorker flush-loop DOMAIN KEYS [COUNT]     write generation after generation, printing each
//   PreferencesWorker flush-once DOMAIN KEYS             one generation, the flush between marker calls
//   PreferencesWorker transaction-loop DOMAIN KEYS      one transaction per generation: `state` and t0…t(KEYS-1)
//   PreferencesWorker undo-loop DOMAIN                   undo the last commit, again and again (restores)
//   PreferencesWorker hold-lock PATH MILLISECONDS        flock PATH, print "locked", hold it, exit
//   PreferencesWorker power-loss-writer DOMAIN W COUNT   flushes and transactions, a trace marker after each
//   PreferencesWorker power-loss-check DOMAIN LIST       open each crash state listed, print what it reads
//   PreferencesWorker power-loss-setter DOMAIN COUNT     sets without flush, a trace marker before each
//   PreferencesWorker power-loss-purger DOMAIN COUNT     COUNT commits holding a secret each, then a purge
//                                                        of it between two trace markers
//   PreferencesWorker power-loss-purge-check DOMAIN COUNT LIST  check each purge crash state listed
//   PreferencesWorker remove-keys DOMAIN PREFIX COUNT    remove PREFIX0..PREFIXn, flush after each
//   PreferencesWorker enospc DOMAIN DIRECTORY            a full file system, step by step (tmpfs)
//   PreferencesWorker read-only DOMAIN DIRECTORY N       N flushes to a read-only directory
//   PreferencesWorker flush-retry DOMAIN                  set a key, flush until it works
//   PreferencesWorker transact-pairs DOMAIN COUNT        COUNT transactions, each setting `width`,
//                                                        `height` and `area` from one i
//   PreferencesWorker transact-increment DOMAIN KEY COUNT [KEY...]  COUNT transactions adding one to KEY
//                                                        (and to each further KEY, in the same transaction)
//   PreferencesWorker observe-order DOMAIN KEY READERS  print "change OLD NEW THREAD" per change while
//                                                        READERS threads read KEY (DeliveryCommands.swift)
//   PreferencesWorker observe-key DOMAIN KEY            print "changed VALUE THREAD WAKEUPS" per change of KEY
//   PreferencesWorker write-on-request DOMAIN KEY         for each line N on stdin: set KEY to N, flush,
//                                                        print N
//   PreferencesWorker timed-write DOMAIN KEY             for each line on stdin: set KEY to the monotonic
//                                                        time T, flush, print T (LatencyCommands.swift)
//   PreferencesWorker timed-watch DOMAIN KEY             print "seen VALUE NOW" per change of KEY
//   PreferencesWorker conformance-adapter                 the conformance suite's JSON-lines adapter
//                                                        (ConformanceAdapter.swift, Tests/Conformance/README.md)
//
// The watch commands are in WatchCommands.swift, the log command in LogCommands.swift, the
// reliability commands in ReliabilityCommands.swift, the transaction and fresh-read commands
// in TransactionCommands.swift, the power-loss purge commands in PowerLossPurgeCommands.swift.
import Foundation
import Preferences

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PreferencesWorker: \(message)\n".utf8))
    exit(2)
}

func store(_ domain: String) -> PreferenceStore {
    do throws(PreferencesError) {
        // PREFERENCES_WORKER_LOCK_TIMEOUT (seconds) overrides the 10 s default, for stress
        // tests whose point is not the timeout.
        if let seconds = ProcessInfo.processInfo.environment["PREFERENCES_WORKER_LOCK_TIMEOUT"].flatMap(Int.init) {
            return try PreferenceStore(domain: domain, configuration: .init(lockTimeout: .seconds(seconds)))
        }
        return try PreferenceStore(domain: domain)
    } catch {
        fail("cannot open \(domain): \(error)")
    }
}

let arguments = CommandLine.arguments
// The watch commands take other arguments than a domain and check them themselves.
switch arguments.dropFirst().first {
case "watch-files":
    watchFiles(paths: Array(arguments.dropFirst(2)))
    exit(0)
case "watch-churn":
    watchChurn(Array(arguments.dropFirst(2)))
    exit(0)
case "log":
    logMessage(Array(arguments.dropFirst(2)))
    exit(0)
case "undo-loop":
    undoLoop(Array(arguments.dropFirst(2)))
    exit(0)
case "transaction-loop":
    transactionLoop(Array(arguments.dropFirst(2)))
    exit(0)
case "power-loss-writer":
    powerLossWriter(Array(arguments.dropFirst(2)))
    exit(0)
case "power-loss-setter":
    powerLossSetter(Array(arguments.dropFirst(2)))
    exit(0)
case "power-loss-check":
    powerLossCheck(Array(arguments.dropFirst(2)))
    exit(0)
case "power-loss-purger":
    powerLossPurger(Array(arguments.dropFirst(2)))
    exit(0)
case "power-loss-purge-check":
    powerLossPurgeCheck(Array(arguments.dropFirst(2)))
    exit(0)
case "flush-loop", "flush-once":
    flushLoop(Array(arguments.dropFirst(2)), markers: arguments[1] == "flush-once")
    exit(0)
case "hold-lock":
    holdLock(Array(arguments.dropFirst(2)))
    exit(0)
case "remove-keys":
    removeKeys(Array(arguments.dropFirst(2)))
    exit(0)
case "enospc":
    enospc(Array(arguments.dropFirst(2)))
    exit(0)
case "read-only":
    readOnly(Array(arguments.dropFirst(2)))
    exit(0)
case "flush-retry":
    flushRetry(Array(arguments.dropFirst(2)))
    exit(0)
case "transact-pairs":
    transactPairs(Array(arguments.dropFirst(2)))
    exit(0)
case "transact-increment":
    transactIncrement(Array(arguments.dropFirst(2)))
    exit(0)
case "observe-order":
    observeOrder(Array(arguments.dropFirst(2)))
    exit(0)
case "observe-key":
    observeKey(Array(arguments.dropFirst(2)))
    exit(0)
case "write-on-request":
    writeOnRequest(Array(arguments.dropFirst(2)))
    exit(0)
case "timed-write":
    timedWrite(Array(arguments.dropFirst(2)))
    exit(0)
case "timed-watch":
    timedWatch(Array(arguments.dropFirst(2)))
    exit(0)
case "conformance-adapter":
    conformanceAdapter()
    exit(0)
default:
    break
}
guard arguments.count >= 4 else { fail("usage: see the comment in main.swift") }
let (command, domain) = (arguments[1], arguments[2])

switch command {
case "set-keys":
    guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[4]),
        let every = arguments.count == 6 ? Int(arguments[5]) : 1, every > 0
    else { fail("set-keys DOMAIN PREFIX COUNT [EVERY]") }
    let preferences = store(domain)
    var longest = Duration.zero
    for index in 0..<count {
        preferences.set(index, forKey: "\(arguments[3])\(index)")
        // In between, the background flush writes what has been set so far.
        guard (index + 1) % every == 0 || index == count - 1 else { continue }
        let start = ContinuousClock.now
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
        longest = max(longest, ContinuousClock.now - start)
    }
    // The longest flush, lock wait included: how long a writer can be kept waiting.
    print("longest-flush-ms \(longest.components.seconds * 1000 + longest.components.attoseconds / 1_000_000_000_000_000)")
case "increment":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("increment DOMAIN KEY COUNT") }
    let preferences = store(domain)
    for _ in 0..<count {
        do throws(PreferencesError) { try preferences.increment(forKey: arguments[3]) } catch { fail("increment: \(error)") }
    }
case "set-and-exit":
    guard arguments.count == 5 else { fail("set-and-exit DOMAIN KEY VALUE") }
    store(domain).set(arguments[4], forKey: arguments[3])
    exit(0)
case "set-pairs":
    guard let count = Int(arguments[3]) else { fail("set-pairs DOMAIN COUNT") }
    let preferences = store(domain)
    for index in 1...max(count, 1) {
        // One replacement of the domain, not two sets: a background flush may run between
        // two sets and write a file holding only the first.
        preferences.setPersistentDomain(["first": index, "pair": ["second": index]], forName: domain)
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    }
case "burst":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("burst DOMAIN KEY COUNT") }
    let preferences = store(domain)
    for index in 0..<count {
        preferences.set("v\(index)", forKey: arguments[3])
    }
    do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
case "growth":
    guard let count = Int(arguments[3]) else { fail("growth DOMAIN-PREFIX COUNT") }
    func entries(_ directory: String) -> Int { (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1 }
    // Dispatch makes a timer descriptor per kind of timer the first time one of that kind is
    // armed (a flush retry, a rate-limited log summary), whenever that is, and keeps it for
    // the process's life: not a store's descriptor, so not counted.
    func descriptors() -> Int { openDescriptors().filter { !$0.hasSuffix("=anon_inode:[timerfd]") }.count }
    do {
        let warmUp = store(domain + ".warmup")
        let observation = warmUp.observe("k") { _ in }
        warmUp.set(0, forKey: "k")
        do throws(PreferencesError) { try warmUp.flush() } catch { fail("flush: \(error)") }
        observation.cancel()
    }
    Thread.sleep(forTimeInterval: 0.2)
    let before = (descriptors(), entries("/proc/self/task"))
    print("open-before:" + openDescriptors().joined(separator: ","))
    for index in 0..<count {
        let preferences = store("\(domain).\(index % 50)")
        let observation = preferences.observe("k") { _ in }
        preferences.set(index, forKey: "k")
        observation.cancel()
    }
    // Flush every domain so no background write is open while counting.
    for index in 0..<min(count, 50) {
        do throws(PreferencesError) { try store("\(domain).\(index)").flush() } catch { fail("flush: \(error)") }
    }
    Thread.sleep(forTimeInterval: 0.5)
    let after = (descriptors(), entries("/proc/self/task"))
    print("descriptors \(before.0) \(after.0) threads \(before.1) \(after.1)")
    // What each descriptor is, for a failure to name the one that stayed open.
    print("open:" + openDescriptors().joined(separator: ","))
case "read":
    print(store(domain).string(forKey: arguments[3]) ?? "(nil)")
case "read-lazily":
    // What a one-shot program holds: inotify instances and the watcher thread, by name.
    func holdings() -> String {
        let inotify = openDescriptors().filter { $0.hasSuffix("anon_inode:inotify") }.count
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let watchers = tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("prefs-")
        }.count
        return "inotify \(inotify) watcher \(watchers)"
    }
    // Unbuffered, line by line: the test answers each line before this reads on.
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    let lazy: PreferenceStore
    do throws(PreferencesError) {
        lazy = try PreferenceStore(domain: domain, configuration: .init(fileWatching: .whenObserved))
    } catch {
        fail("cannot open \(domain): \(error)")
    }
    say("read \(lazy.string(forKey: arguments[3]) ?? "(nil)") \(holdings())")
    // Each line: another process has committed meanwhile, and this read catches up.
    while readLine() != nil {
        say("again \(lazy.string(forKey: arguments[3]) ?? "(nil)") \(holdings())")
    }
    let observation = lazy.observe(arguments[3]) { _ in }
    // The watcher thread names itself as it starts.
    Thread.sleep(forTimeInterval: 0.2)
    say("observed \(holdings())")
    observation.cancel()
case "foundation-write":
    guard arguments.count >= 5, arguments.count % 2 == 1 else { fail("foundation-write DOMAIN KEY VALUE...") }
    // Foundation's class itself, not ours: the file a program written for it leaves behind.
    guard let defaults = UserDefaults(suiteName: domain) else { fail("no UserDefaults suite \(domain)") }
    for pair in stride(from: 3, to: arguments.count, by: 2) {
        defaults.set(arguments[pair + 1], forKey: arguments[pair])
    }
    guard defaults.synchronize() else { fail("UserDefaults.synchronize failed") }
case "user-defaults-standard":
    guard arguments.count == 5 else { fail("user-defaults-standard DOMAIN KEY VALUE") }
    // Typed as Foundation's class, as code written for Foundation holds it.
    let defaults: UserDefaults = PreferencesUserDefaults.standard
    guard PreferencesUserDefaults.standard.store.domain == domain else {
        fail("standard's domain is \(PreferencesUserDefaults.standard.store.domain), not \(domain)")
    }
    defaults.set(arguments[4], forKey: arguments[3])
    guard defaults.synchronize() else { fail("synchronize failed") }
    print(String(describing: type(of: defaults)), PreferencesUserDefaults(suiteName: nil)?.store.domain ?? "(nil)")
case "size-storm":
    guard let count = Int(arguments[3]) else { fail("size-storm DOMAIN COUNT") }
    sizeStorm(domain: domain, count: count)
default:
    fail("unknown command \(command)")
}

/// Where each of this process's descriptors leads (`/proc/self/fd`), with no spaces.
func openDescriptors() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.sorted().map { name in
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?"
        return "fd\(name)=" + target.replacingOccurrences(of: " ", with: "_")
    }
}
