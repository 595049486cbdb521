import Foundation
import Synchronization

/// Where the library reports problems it cannot throw to anyone: a corrupt file found
/// while loading, a background flush that failed.
///
/// Until the journald backend arrives, reports go to standard error, each distinct
/// message at most once per ten seconds so a damaged file cannot flood the log.
enum PreferencesDiagnostics {
    private static let lastReported = Mutex([String: ContinuousClock.Instant]())

    /// Reports an error once per ten seconds per distinct description.
    static func report(_ error: PreferencesError) {
        let message = error.description
        let now = ContinuousClock.now
        let shouldWrite = lastReported.withLock { table in
            if let last = table[message], now - last < .seconds(10) { return false }
            table[message] = now
            return true
        }
        guard shouldWrite else { return }
        FileHandle.standardError.write(Data("swift-preferences: \(message)\n".utf8))
    }
}
