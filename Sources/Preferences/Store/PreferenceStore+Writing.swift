public import Foundation
import Logging

extension PreferenceStore {
    /// Stores any property-list value (`Bool`, integers, `Float`, `Double`, `String`,
    /// `Date`, `Data`, `URL`, arrays and string-keyed dictionaries of these); nil removes
    /// the key.
    ///
    /// Passing anything else is a programming error and stops the program with a message
    /// naming the key and the type, as on Apple's systems.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else {
            removeObject(forKey: key)
            return
        }
        setValue(propertyList(value, forKey: key, in: "set(_:forKey:)"), forKey: key)
    }

    /// Stores a URL: a file URL as its path with the home directory abbreviated to `~`,
    /// any other URL as its full string. nil removes the key.
    public func set(_ url: URL?, forKey key: String) {
        setValue(url.map { PropertyListValue.storing($0, home: locations.homeDirectory) }, forKey: key)
    }

    /// Stores a property-list value, or removes the key for nil.
    ///
    /// Visible to reads in this process at once; written in the background. Setting the
    /// value a key already has does nothing at all. A set that would make the domain larger
    /// than its hard size limit is refused (logged, and delivered to ``sizeLimitEvents()``);
    /// use ``trySet(_:forKey:)`` to be told.
    ///
    /// A value that breaks the rule its key is declared with in the domain's schema is not
    /// set either: the key keeps its value and a warning naming the key, the value, the rule
    /// and the schema is logged.
    public func setValue(_ value: PropertyListValue?, forKey key: String) {
        do throws(PreferencesError) {
            try trySet(value, forKey: key)
        } catch {
            // A size refusal is already logged and notified; the non-throwing API only refuses.
            if let violation = error.violation { reportViolation(violation) }
        }
    }

    /// Stores a property-list value, or removes the key for nil, throwing instead of
    /// silently refusing a set that would cross the hard size limit.
    ///
    /// - Throws: ``PreferencesError`` with code `schemaViolation` (its ``PreferencesError/violation``
    ///   names the key, the value, the rule and the schema) or `tooLarge`; nothing was changed.
    public func trySet(_ value: PropertyListValue?, forKey key: String) throws(PreferencesError) {
        if let violation = schemaViolation(setting: value, forKey: key) { throw PreferencesError(violation) }
        // Prior notifications go out before the change, with no lock held.
        if observers.wantsPrior(key) {
            let preview = snapshot.read { state -> ResolvedValues.Change? in
                guard let index = state.pointee.appIndex, state.pointee.layers[index].values[key] != value else { return nil }
                return state.pointee.previewSet(value, forKey: key, inLayer: index)
            }
            if let preview { deliverPrior(preview) }
        }
        let (soft, hard) = (configuration.softSizeLimit, configuration.sizeLimit)
        // Decided and applied under the domain's state lock, where every change of the app
        // layer is made, so the view `decide` reads cannot change before the set is applied.
        let (outcome, stores) = appDomain.set(value, forKey: key, by: self) { () -> PersistentDomain.SetOutcome in
            snapshot.read { state -> PersistentDomain.SetOutcome in
                guard let index = state.pointee.appIndex else { return .unchanged }
                let previous = state.pointee.layers[index].values[key]
                guard previous != value else { return .unchanged }
                let before = state.pointee.appDomainSize
                let after = before + ResolvedValues.sizeChange(forKey: key, from: previous, to: value)
                if after > hard && after > before { return .refused(size: after) }
                return .applied(previousSize: before, size: after)
            }
        }
        switch outcome {
        case .unchanged:
            return
        case .refused(let size):
            let error = PreferencesError(
                .tooLarge, path: appDomain.file.path,
                "setting \"\(key)\" would make the domain about \(size) bytes, over its limit of \(hard); the value was not set")
            reportSizeLimit(key: key, size: size, limit: hard, event: .sizeRefused, error: error)
            throw error
        case .applied(let before, let size):
            // Every store on the file has the value now; their observers hear of it here,
            // with no lock held (or from the thread already delivering to them).
            stores.deliver()
            appDomain.scheduleFlush()
            if before <= soft && size > soft {
                reportSizeLimit(key: key, size: size, limit: soft, event: .sizeWarning, error: nil)
            }
        }
    }

    /// Logs a size-limit warning or refusal, then hands it to ``sizeLimitEvents()``'
    /// sequences and posts the deprecated `sizeLimitExceededNotification`, on this thread.
    private func reportSizeLimit(key: String, size: Int, limit: Int, event: PreferencesLogEvent, error: PreferencesError?) {
        defer {
            sizeLimitObservers.deliver(SizeLimitEvent(key: key, size: size, limit: limit, wasRefused: error != nil))
            NotificationCenter.default.post(
                name: Self.sizeLimitNotificationName, object: self,
                userInfo: ["key": key, "size": size, "limit": limit, "refused": error != nil])
        }
        // A program setting in a loop must not flood the journal: 10 entries per kind per
        // 10 seconds, then one summary of how many were dropped.
        guard PreferencesLogger.admit(event, summarizingTo: logger) else { return }
        let metadata: Logger.Metadata = [
            PreferencesLogField.messageID: .string(event.messageID),
            PreferencesLogField.domain: .string(domain),
            PreferencesLogField.keys: .array([.string(key)]),
            PreferencesLogField.bytes: .string(String(size)),
            PreferencesLogField.limit: .string(String(limit)),
            PreferencesLogField.path: .string(appDomain.file.path),
        ]
        if let error {
            logger.error("\(error)", metadata: metadata)
        } else {
            logger.warning(
                "\(domain) is about \(size) bytes after setting \"\(key)\", over its soft limit of \(limit)",
                metadata: metadata)
        }
    }

    /// Writes every pending change of this store's domains to disk now, durably.
    ///
    /// - Throws: ``PreferencesError`` saying which file and why (lock timeout, unsafe or
    ///   full file system...). The changes stay pending and are retried in the background.
    public func flush() throws(PreferencesError) {
        var firstError: PreferencesError?
        // Domains with nothing pending too: a background flush may have written them, and
        // flush() returns only once that write's rename is synced to disk.
        for domain in writableDomains() {
            do throws(PreferencesError) {
                try domain.flush()
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// Writes pending changes and re-reads every layer from disk; false if a write failed.
    ///
    /// Apple's method: kept for porting. Prefer ``flush()``, which says what went wrong.
    @discardableResult
    public func synchronize() -> Bool {
        var succeeded = true
        do throws(PreferencesError) { try flush() } catch { succeeded = false }
        for source in snapshot.read({ $0.layers.compactMap(\.source) }) where !source.hasPendingChanges {
            source.reload()
        }
        return succeeded
    }

    /// Reads, changes and writes one key while holding the domain's lock, so no other
    /// process can write between the read and the write: counters and the like.
    ///
    /// `body` gets the key's value in the file (with this process's pending changes
    /// applied) and may change or remove it. Pending changes are written in the same step.
    /// `body` runs while the domain's lock is held, in this process and across processes:
    /// it must be quick and must not use preferences itself (a flush from inside it would
    /// wait for its own lock). Observers hear of the result after the write, as this
    /// process's change, on the calling thread
    /// (see ``observe(_:options:handler:)-(String,_,_)``).
    ///
    /// - Throws: ``PreferencesError``: `schemaViolation` if `body` leaves a value that breaks
    ///   the key's declaration (nothing is written), or why the write failed.
    public func modify<Result: Sendable>(forKey key: String, _ body: (inout PropertyListValue?) -> Result) throws(PreferencesError) -> Result {
        let schema = snapshot.read { state in state.pointee.declared }?.schema
        return try appDomain.modify(changing: { [key] }) { values throws(PreferencesError) -> Result in
            var value = values[key]
            let result = body(&value)
            if let violation = schema?.violation(setting: value, forKey: key) { throw PreferencesError(violation) }
            values[key] = value
            return result
        }
    }

    /// Adds `amount` to the integer at `key` atomically across processes, treating a
    /// missing or non-numeric value as 0.
    /// - Returns: the new value.
    @discardableResult
    public func increment(forKey key: String, by amount: Int = 1) throws(PreferencesError) -> Int {
        try modify(forKey: key) { value in
            let next = (value?.coercedInteger ?? 0) &+ amount
            value = .integer(PropertyListInteger(next))
            return next
        }
    }

    /// Converts a value handed to the `UserDefaults`-style API, stopping the program with
    /// the key and the offending type if it is not a property-list type (Apple's rule).
    func propertyList(_ value: Any, forKey key: String, in function: String) -> PropertyListValue {
        do throws(BridgingFailure) {
            return try PropertyListValue.bridging(value, home: locations.homeDirectory)
        } catch {
            preconditionFailure("PreferenceStore.\(function): the value for key \"\(key)\": \(error)")
        }
    }

    private func writableDomains() -> [PersistentDomain] {
        let layered = snapshot.read { $0.layers.compactMap(\.source) }.filter(\.isWritable)
        let touched = withExtras { Array($0.touchedDomains.values) }
        var seen = Set<ObjectIdentifier>()
        return (layered + touched).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
