import Foundation
import Preferences

/// The observing process: prints every change of the demo domain with its latency.
///
/// Writers put the monotonic time of each change in `SentAt` just before changing the
/// other keys, so `now - SentAt` is the time from `set` in one process to the callback here.
enum Observer {
    static func run(domain: String, quiet: Bool) -> Never {
        let store: PreferenceStore
        do throws(PreferencesError) {
            store = try PreferenceStore(domain: domain)
        } catch {
            fatal("cannot open \(domain): \(error)")
        }
        let observation = store.observe { change in
            guard change.key != "SentAt" else { return }
            let sentAt = store.value(forKey: "SentAt")?.integerValue?.int64Value
            let latency = sentAt.map { Double(monotonicNanoseconds() - $0) / 1_000_000 }
            if quiet {
                print("latency \(latency ?? -1)")
            } else {
                let origin = change.isFromThisProcess ? "this process" : "another process"
                let measured = latency.map { String(format: "%.3f ms after the set", $0) } ?? "a hand edit"
                print("  [observer \(ProcessInfo.processInfo.processIdentifier)] \(change.key): \(describe(change.oldValue)) → \(describe(change.newValue))   (\(origin), \(measured))")
            }
            flushOutput()
        }
        print("ready")
        flushOutput()
        // Runs until the parent closes our standard input.
        _ = FileHandle.standardInput.readDataToEndOfFile()
        observation.cancel()
        exit(0)
    }

    static func describe(_ value: PropertyListValue?) -> String {
        guard let value else { return "(none)" }
        // The printer lays containers out over lines; one line reads better here.
        return OpenStepPropertyListEncoder().encode(value).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

func fatal(_ message: String) -> Never {
    FileHandle.standardError.write(Data("preferences-demo: \(message)\n".utf8))
    exit(1)
}
