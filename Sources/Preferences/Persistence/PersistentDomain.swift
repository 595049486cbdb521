import Foundation
import Synchronization

/// One domain file as this process shares it: its last known contents, the changes this
/// process has made and not yet written, and the background flush that writes them.
///
/// There is one per file per process, however many stores use it, so two stores of the
/// same suite see each other's sets at once and their changes go out in one write. A
/// flush takes the file's lock, re-reads it, applies only this process's pending changes
/// (so another process's keys are never lost or resurrected), and writes atomically.
final class PersistentDomain: Sendable {
    /// The file.
    let file: DomainFile
    /// How the file is read and written.
    let policy: FilePolicy
    /// False for the managed and system layers, which this library never writes.
    let isWritable: Bool

    private struct State {
        var isLoaded = false
        /// The file's values as last read or written.
        var disk: [String: PropertyListValue] = [:]
        var identity: FileIdentity?
        /// Why the file could not be read or written last time, if it could not.
        var problem: PreferencesError?
        /// Replace the whole file with this before applying `pending` (setPersistentDomain).
        var replacement: [String: PropertyListValue]?
        /// This process's unwritten changes; nil removes the key.
        var pending: [String: PropertyListValue?] = [:]
        var isFlushScheduled = false
        var retryDelay: Duration = .zero
        var subscribers: [ObjectIdentifier: WeakStore] = [:]
    }

    private struct WeakStore {
        weak var store: PreferenceStore?
    }

    private let state = Mutex(State())
    /// Serialises flushes of this file, so two never interleave their lock-read-write.
    private let flushing = Mutex(())

    private init(file: DomainFile, policy: FilePolicy, isWritable: Bool) {
        self.file = file
        self.policy = policy
        self.isWritable = isWritable
    }

    // MARK: The process-wide table

    private static let table = Mutex([String: PersistentDomain]())

    /// The process's one instance for `file`; the first caller's policy applies.
    static func shared(_ file: DomainFile, policy: FilePolicy, isWritable: Bool) -> PersistentDomain {
        let domain = table.withLock { table in
            if let existing = table[file.path] { return existing }
            let created = PersistentDomain(file: file, policy: policy, isWritable: isWritable)
            table[file.path] = created
            return created
        }
        ProcessExit.ensureFlushAtExit()
        return domain
    }

    /// Every domain this process has opened.
    static var all: [PersistentDomain] {
        table.withLock { Array($0.values) }
    }

    // MARK: Reading

    /// The values stores should see: the file's, with this process's pending changes on
    /// top. Reads the file the first time.
    func currentValues() -> [String: PropertyListValue] {
        loadIfNeeded()
        return state.withLock { Self.overlay($0) }
    }

    /// Why the file is unusable, if it is (corrupt, unsafe, unreadable).
    var problem: PreferencesError? {
        state.withLock { $0.problem }
    }

    /// Whether this process has changes not yet on disk.
    var hasPendingChanges: Bool {
        state.withLock { $0.replacement != nil || !$0.pending.isEmpty }
    }

    private func loadIfNeeded() {
        guard !state.withLock({ $0.isLoaded }) else { return }
        reload()
    }

    /// Re-reads the file and hands its values (with pending changes on top) to every store.
    func reload() {
        let outcome: Result<DomainContents?, PreferencesError>
        do throws(PreferencesError) {
            outcome = .success(try file.read(policy: policy))
        } catch {
            outcome = .failure(error)
        }
        let (values, stores) = state.withLock { state -> ([String: PropertyListValue], [PreferenceStore]) in
            state.isLoaded = true
            switch outcome {
            case .success(let contents):
                state.disk = contents?.values ?? [:]
                state.identity = contents?.identity
                state.problem = nil
            case .failure(let error):
                // Keep the last good values: a damaged file must not wipe settings.
                state.problem = error
            }
            return (Self.overlay(state), state.subscribers.values.compactMap(\.store))
        }
        if case .failure(let error) = outcome {
            PreferencesDiagnostics.report(error)
        }
        for store in stores {
            store.domainDidReload(self, values: values)
        }
    }

    private static func overlay(_ state: State) -> [String: PropertyListValue] {
        var values = state.replacement ?? state.disk
        for (key, value) in state.pending {
            values[key] = value
        }
        return values
    }

    // MARK: Subscribers

    func subscribe(_ store: PreferenceStore) {
        state.withLock { $0.subscribers[ObjectIdentifier(store)] = WeakStore(store: store) }
    }

    func unsubscribe(_ store: PreferenceStore) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(store)) }
    }

    // MARK: Writing

    /// Records a change made by `origin` and tells the other stores on this file.
    func record(_ value: PropertyListValue?, forKey key: String, from origin: PreferenceStore) {
        let others = state.withLock { state -> [PreferenceStore] in
            state.pending[key] = .some(value)
            return state.subscribers.values.compactMap(\.store).filter { $0 !== origin }
        }
        for store in others {
            store.domainDidChange(self, key: key, value: value)
        }
        scheduleFlush()
    }

    /// Replaces the whole domain (setPersistentDomain / removePersistentDomain).
    func replaceAll(with values: [String: PropertyListValue]) {
        let stores = state.withLock { state -> [PreferenceStore] in
            state.replacement = values
            state.pending = [:]
            return state.subscribers.values.compactMap(\.store)
        }
        for store in stores {
            store.domainDidReload(self, values: values)
        }
        scheduleFlush()
    }

    private static let queue = DispatchQueue(label: "swift-preferences.flush")

    /// Queues a background flush unless one is already queued: sets that arrive while a
    /// flush runs join the next one.
    func scheduleFlush(after delay: Duration = .zero) {
        let shouldSchedule = state.withLock { state in
            if state.isFlushScheduled { return false }
            state.isFlushScheduled = true
            return true
        }
        guard shouldSchedule else { return }
        let work: @Sendable () -> Void = { [self] in
            state.withLock { $0.isFlushScheduled = false }
            do throws(PreferencesError) {
                try flush()
                state.withLock { $0.retryDelay = .zero }
            } catch {
                // Keep the changes and try again later, backing off to 30 s.
                let delay = state.withLock { state -> Duration in
                    state.retryDelay = min(max(state.retryDelay * 2, .milliseconds(250)), .seconds(30))
                    return state.retryDelay
                }
                scheduleFlush(after: delay)
            }
        }
        if delay == .zero {
            Self.queue.async(execute: work)
        } else {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            Self.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: work)
        }
    }

    /// Writes this process's pending changes now, durably.
    ///
    /// Takes the file's lock, re-reads it, applies only the pending changes, writes a new
    /// file and renames it into place. On failure the changes stay pending.
    func flush() throws(PreferencesError) {
        try modify { _ in }
    }

    /// Flushes, and runs `body` on the file's values under the same lock: the atomic
    /// read-modify-write. `body` sees the file's current values with this process's
    /// pending changes applied.
    func modify<Result: Sendable>(_ body: (inout [String: PropertyListValue]) throws(PreferencesError) -> Result) throws(PreferencesError) -> Result {
        guard isWritable else {
            throw PreferencesError(.readOnly, path: file.path, "this layer is read-only")
        }
        let (result, values, stores) = try flushing.withLock { _ throws(PreferencesError) -> (Result, [String: PropertyListValue], [PreferenceStore]) in
            let (batch, replacement, fallback) = state.withLock { ($0.pending, $0.replacement, $0.disk) }
            let hasChanges = !batch.isEmpty || replacement != nil
            let outcome: (result: Result, contents: DomainContents?)
            do throws(PreferencesError) {
                outcome = try file.update(policy: policy, recovering: fallback) { values throws(PreferencesError) -> Result in
                    if let replacement { values = replacement }
                    for (key, value) in batch { values[key] = value }
                    return try body(&values)
                }
            } catch {
                state.withLock { $0.problem = error }
                if hasChanges { PreferencesDiagnostics.report(error) }
                throw error
            }
            let (values, stores) = state.withLock { state -> ([String: PropertyListValue], [PreferenceStore]) in
                state.isLoaded = true
                state.problem = nil
                state.disk = outcome.contents?.values ?? [:]
                state.identity = outcome.contents?.identity
                if let written = replacement, state.replacement == written { state.replacement = nil }
                // Drop only the changes that were written; a set made during the write
                // changed the value and stays pending for the next flush.
                for (key, value) in batch where state.pending[key] == value {
                    state.pending[key] = nil
                }
                return (Self.overlay(state), state.subscribers.values.compactMap(\.store))
            }
            return (outcome.result, values, stores)
        }
        // Outside the flush lock: a store's observers may set or flush again.
        for store in stores {
            store.domainDidReload(self, values: values)
        }
        return result
    }
}
