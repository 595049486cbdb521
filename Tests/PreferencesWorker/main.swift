// A separate process for the cross-process tests: real processes, not threads, write the
// same domain. It locates files through PREFERENCES_HOME like any program would.
//
//   PreferencesWorker set-keys DOMAIN PREFIX COUNT      set PREFIX0..PREFIXn, flush after each
//   PreferencesWorker increment DOMAIN KEY COUNT         COUNT atomic increments of KEY
//   PreferencesWorker set-and-exit DOMAIN KEY VALUE      set one string and exit without flushing
//   PreferencesWorker read DOMAIN KEY                    print string(forKey:) or "(nil)"
//   PreferencesWorker watch-files SECONDS PATH...        report each directory-watcher call
//   PreferencesWorker watch-churn DIRECTORY COUNT        count fds and threads around COUNT watches
//
// The watch commands are in WatchCommands.swift.
import Foundation
import Preferences

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PreferencesWorker: \(message)\n".utf8))
    exit(2)
}

func store(_ domain: String) -> PreferenceStore {
    do throws(PreferencesError) {
        return try PreferenceStore(domain: domain)
    } catch {
        fail("cannot open \(domain): \(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: see the comment in main.swift") }
let (command, domain) = (arguments[1], arguments[2])

switch command {
case "set-keys":
    guard arguments.count == 5, let count = Int(arguments[4]) else { fail("set-keys DOMAIN PREFIX COUNT") }
    let preferences = store(domain)
    for index in 0..<count {
        preferences.set(index, forKey: "\(arguments[3])\(index)")
        do throws(PreferencesError) { try preferences.flush() } catch { fail("flush: \(error)") }
    }
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
case "read":
    print(store(domain).string(forKey: arguments[3]) ?? "(nil)")
case "watch-files":
    watchFiles(seconds: arguments[2], paths: Array(arguments.dropFirst(3)))
case "watch-churn":
    watchChurn(directory: arguments[2], count: arguments[3])
default:
    fail("unknown command \(command)")
}
