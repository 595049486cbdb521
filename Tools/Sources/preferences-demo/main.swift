// preferences-demo: a change in one process reaching another, live.
//
//   preferences-demo                     the demonstration: an observer process prints each
//                                        change this process (and a hand edit) makes
//   preferences-demo latency [COUNT]     set → callback latency across processes, COUNT
//                                        changes (default 1,000): p50, p99, p99.9, max
//   preferences-demo observe [--quiet]   the observing process (started by the two above)
//   preferences-demo writer DOMAIN       a writer another program drives: for each line
//                                        "KEY INTEGER" on standard input it sets the key,
//                                        flushes, and prints the wall-clock time flush returned
//                                        (CLOCK_REALTIME, nanoseconds), after "ready"; the
//                                        settings page's browser latency is timed from it
//
// Files go to $PREFERENCES_HOME, or a fresh temporary directory when it is unset.
import Foundation
import Preferences

let domain = "com.example.demo"
let arguments = CommandLine.arguments

func startObserver(quiet: Bool, environment: [String: String]) -> (Process, LineReader, FileHandle) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["observe"] + (quiet ? ["--quiet"] : [])
    process.environment = environment
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    do { try process.run() } catch { fatal("cannot start the observer: \(error)") }
    let reader = LineReader(output.fileHandleForReading)
    guard reader.next() == "ready" else { fatal("the observer did not start") }
    return (process, reader, input.fileHandleForWriting)
}

func openStore(environment: [String: String]) -> PreferenceStore {
    do throws(PreferencesError) {
        return try PreferenceStore(domain: domain, configuration: .init(environment: environment, arguments: ["preferences-demo"]))
    } catch {
        fatal("cannot open \(domain): \(error)")
    }
}

/// Sets `key` the way the observer can time: `SentAt` first, then the value.
func timedSet(_ store: PreferenceStore, _ value: Any, forKey key: String) {
    store.set(Int(monotonicNanoseconds()), forKey: "SentAt")
    store.set(value, forKey: key)
}

var environment = ProcessInfo.processInfo.environment
if environment["PREFERENCES_HOME"] == nil {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preferences-demo-\(ProcessInfo.processInfo.processIdentifier)")
    environment["PREFERENCES_HOME"] = directory.path
}

switch arguments.dropFirst().first {
case "observe":
    Observer.run(domain: domain, quiet: arguments.contains("--quiet"))

case "latency":
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let store = openStore(environment: environment)
    // Create the domain before the observer starts, so the first change is timed like the rest.
    store.set(true, forKey: "Ready")
    do throws(PreferencesError) { try store.flush() } catch { fatal("flush: \(error)") }
    let (observer, lines, stdin) = startObserver(quiet: true, environment: environment)
    var latencies: [Double] = []
    for index in 0..<count {
        timedSet(store, index, forKey: "Probe")
        // Wait for the observer to see this change before making the next, so every
        // change is timed alone rather than coalesced into a burst.
        while let line = lines.next() {
            if line.hasPrefix("latency "), let value = Double(line.dropFirst(8)), value >= 0 {
                latencies.append(value)
                break
            }
        }
    }
    stdin.closeFile()
    observer.waitUntilExit()
    latencies.sort()
    func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
    print(String(
        format: "set in one process → callback in another, %d changes: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms",
        latencies.count, percentile(0.5), percentile(0.99), percentile(0.999), latencies.last ?? 0))

case "writer":
    guard arguments.count > 2 else { fatal("usage: preferences-demo writer DOMAIN") }
    let store: PreferenceStore
    do throws(PreferencesError) {
        store = try PreferenceStore(domain: arguments[2], configuration: .init(environment: environment, arguments: ["preferences-demo"]))
    } catch {
        fatal("cannot open \(arguments[2]): \(error)")
    }
    print("ready")
    flushOutput()
    while let line = readLine() {
        let words = line.split(separator: " ")
        guard words.count == 2, let value = Int(words[1]) else { fatal("expected \"KEY INTEGER\", got \"\(line)\"") }
        store.set(value, forKey: String(words[0]))
        do throws(PreferencesError) { try store.flush() } catch { fatal("flush: \(error)") }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        print(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
        flushOutput()
    }

case nil:
    print("preferences directory: \(environment["PREFERENCES_HOME"]!)")
    print("starting an observer process...")
    let store = openStore(environment: environment)
    // Create the domain's directory and file first, so the observer watches it from the
    // start instead of waiting for it to appear.
    store.set(true, forKey: "DemoRunning")
    do throws(PreferencesError) { try store.flush() } catch { fatal("flush: \(error)") }
    let (observer, lines, stdin) = startObserver(quiet: false, environment: environment)
    let printer = Thread {
        while let line = lines.next() { print(line); flushOutput() }
    }
    printer.start()
    func step(_ text: String, _ body: () -> Void) {
        print("this process (\(ProcessInfo.processInfo.processIdentifier)): \(text)")
        flushOutput()
        body()
        Thread.sleep(forTimeInterval: 0.4)
    }
    step("set Greeting = Hello") { timedSet(store, "Hello", forKey: "Greeting") }
    step("set Greeting = Bonjour") { timedSet(store, "Bonjour", forKey: "Greeting") }
    step("set Interval = 45") { timedSet(store, 45, forKey: "Interval") }
    step("set Colors = (red, green)") { timedSet(store, ["red", "green"], forKey: "Colors") }
    step("set Greeting = Bonjour again (same value: nothing is written, nobody is told)") {
        timedSet(store, "Bonjour", forKey: "Greeting")
    }
    step("edit the file by hand with python3's plistlib (Greeting = edited by hand)") {
        do throws(PreferencesError) { try store.flush() } catch { fatal("flush: \(error)") }
        let path = environment["PREFERENCES_HOME"]! + "/\(domain).plist"
        let script = """
            import plistlib, os, sys
            p = sys.argv[1]; d = plistlib.load(open(p, 'rb')); d.pop('SentAt', None); d['Greeting'] = 'edited by hand'
            plistlib.dump(d, open(p + '.tmp', 'wb'), fmt=plistlib.FMT_BINARY); os.chmod(p + '.tmp', 0o600); os.rename(p + '.tmp', p)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, path]
        do { try python.run() } catch { fatal("cannot run python3: \(error)") }
        python.waitUntilExit()
    }
    step("remove Interval") {
        store.set(Int(monotonicNanoseconds()), forKey: "SentAt")
        store.removeObject(forKey: "Interval")
    }
    stdin.closeFile()
    observer.waitUntilExit()
    printer.cancel()
    print("done. Measure latency over many changes with: preferences-demo latency 1000")

default:
    fatal("unknown command \(arguments[1]); see the comment at the top of main.swift")
}
