public import Foundation
import Logging
import Synchronization

extension PreferenceStore {
    // MARK: The schema

    /// The domain's schema, if it has a usable one: found on the schema search path when the
    /// store opened (and followed live), or registered with ``register(schemaAt:)``.
    public var schema: PreferenceSchema? {
        snapshot.read { $0.pointee.declared?.schema }
    }

    /// Why the domain's schema file could not be used, if one exists and could not; the
    /// domain then works as if it had no schema.
    public var schemaProblem: SchemaError? {
        withExtras { $0.schemaOutcome.error }
    }

    /// Uses the schema at `url` for this store instead of the one found on the search path: a
    /// native schema file, or a Settings.bundle (its directory or its `Root.plist`). The file
    /// is checked as found schemas are (no links, owned by this user or root, not writable by
    /// others) and followed live.
    ///
    /// - Throws: ``PreferencesError`` with code `invalidSchema` and the schema's own error;
    ///   the store keeps the schema it had.
    public func register(schemaAt url: URL) throws(PreferencesError) {
        let lookup = SchemaLookup(domain: domain, place: .file(url.path))
        let outcome = lookup.find()
        if let error = outcome.error { throw PreferencesError(error) }
        withExtras { $0.schemaLookup = lookup }
        applySchema(outcome, of: lookup, migratingInBackground: false)
    }

    /// Looks the schema up again (a watched schema file or directory changed) and applies
    /// what is found if it differs from what the store has.
    func reloadSchema() {
        let lookup = withExtras { $0.schemaLookup }
        // On the watcher thread: a migration waits for the domain's lock, which another
        // process may hold for as long as the lock timeout, so it runs on a queue instead.
        applySchema(lookup.find(), of: lookup, migratingInBackground: true)
    }

    /// Puts `outcome` in place if `lookup` is still the store's and the outcome is new: the
    /// declared defaults and rules change in one commit, observers hear of every value that
    /// reads differently, and the watches follow the files.
    private func applySchema(_ outcome: SchemaLookup.Outcome, of lookup: SchemaLookup, migratingInBackground: Bool) {
        let applied = extras.withLock { extras -> (isNew: Bool, mustDeliver: Bool) in
            // A register(schemaAt:) in between decides, not this older lookup.
            guard extras.schemaLookup == lookup, extras.schemaOutcome != outcome else { return (false, false) }
            let schemaChanged = extras.schemaOutcome.schema != outcome.schema
            extras.schemaOutcome = outcome
            guard schemaChanged else { return (true, false) }
            let declared = outcome.schema.map { DeclaredSchema($0, domain: domain, logger: logger) }
            return (true, commit(origin: .anotherProcess, postsNotification: true) { $0.setSchema(declared) })
        }
        // Found in a file: delivered on the watcher thread, like another process's change.
        if applied.mustDeliver { deliverFoundChanges() }
        guard applied.isNew else { return }
        followSchema(outcome, of: lookup, isNew: true, migratingInBackground: migratingInBackground)
    }

    /// Watches what `lookup` may find and, for a new outcome, reports a schema that cannot
    /// be used and moves values from old key names.
    func followSchema(_ outcome: SchemaLookup.Outcome, of lookup: SchemaLookup, isNew: Bool, migratingInBackground: Bool = false) {
        let entries = lookup.watchedEntries(after: outcome)
        // Not watched yet, and nothing registered, until the store watches its files.
        let unchanged = !watchesFiles.load(ordering: .sequentiallyConsistent) || withExtras { $0.schemaWatchedEntries == entries && $0.schemaLookup == lookup }
        if !unchanged {
            // Registered outside the lock: a handler running now may be waiting for it.
            let registrations = entries.map { entry in
                DirectoryWatcher.shared.watch(directory: entry.directory, fileName: entry.name) { [weak self] in
                    self?.reloadSchema()
                }
            }
            let replaced = withExtras { extras -> [DirectoryWatcher.Registration] in
                guard extras.schemaLookup == lookup else { return registrations }
                defer {
                    extras.schemaWatches = registrations
                    extras.schemaWatchedEntries = entries
                }
                return extras.schemaWatches
            }
            // Cancelled with no lock held (a cancel waits for a running handler).
            for registration in replaced { registration.cancel() }
        }
        guard isNew else { return }
        // Before any write of the new schema's keys: private values stay out of the history.
        if let schema = outcome.schema { appDomain.declarePrivate(schema.privateKeys) }
        if let error = outcome.error { reportSchemaProblem(error) }
        guard let schema = outcome.schema, !schema.renames.isEmpty else { return }
        if migratingInBackground {
            DispatchQueue.global(qos: .utility).async { [weak self] in self?.migrateRenamedKeys(schema) }
        } else {
            migrateRenamedKeys(schema)
        }
    }

    /// Logs a schema that cannot be used (once per distinct problem per ten seconds).
    private func reportSchemaProblem(_ error: SchemaError) {
        var metadata: Logger.Metadata = [
            PreferencesLogField.messageID: .string(PreferencesLogEvent.schemaUnusable.messageID),
            PreferencesLogField.domain: .string(domain),
            PreferencesLogField.schema: .string(error.path),
            PreferencesLogField.error: .string(error.code.description),
        ]
        if !error.keyPath.isEmpty { metadata[PreferencesLogField.schemaKeyPath] = .string(error.keyPath) }
        guard PreferencesLogger.admit(.schemaUnusable, summarizingTo: logger) else { return }
        logger.error("\(domain) works without its schema: \(error)", metadata: metadata)
    }

    // MARK: Migrations

    /// Moves each value stored under a declared key's old name to the key, once: under the
    /// domain's lock, so two processes opening the domain at once move it once between them,
    /// and later runs find nothing to move and write nothing. A value already stored under
    /// the new name is kept (it was written later, by a program that knew the new name) and
    /// the old one is dropped.
    func migrateRenamedKeys(_ schema: PreferenceSchema) {
        let renames = schema.renames
        let current = appDomain.currentValues()
        guard renames.contains(where: { current[$0.old] != nil }) else { return }
        let keys = renames.flatMap { [$0.old, $0.new] }
        do throws(PreferencesError) {
            let moved = try appDomain.modify(changing: { keys }) { values -> [String] in
                var moved: [String] = []
                for (old, new) in renames {
                    guard let value = values[old] else { continue }
                    if values[new] == nil { values[new] = value }
                    values[old] = nil
                    moved.append("\(old) -> \(new)")
                }
                return moved
            }
            guard !moved.isEmpty else { return }
            logger.info(
                "\(domain): moved \(moved.joined(separator: ", ")) as its schema declares",
                metadata: [
                    PreferencesLogField.messageID: .string(PreferencesLogEvent.migrated.messageID),
                    PreferencesLogField.domain: .string(domain),
                    PreferencesLogField.keys: .array(moved.map { .string($0) }),
                    PreferencesLogField.schema: .string(schema.path),
                    PreferencesLogField.path: .string(appDomain.file.path),
                ])
        } catch {
            PreferencesLogger.report(error, event: .writeFailed, to: logger)
        }
    }

    // MARK: Validation

    /// The rule a set of `value` for `key` would break, if the domain's schema declares the
    /// key; nil for undeclared keys, allowed values and removals.
    func schemaViolation(setting value: PropertyListValue?, forKey key: String) -> SchemaViolation? {
        guard let value, let declared = snapshot.read({ state in state.pointee.declared }) else { return nil }
        return declared.violation(setting: value, forKey: key)
    }

    /// Logs a refused set of a declared key (at most ten entries per ten seconds).
    func reportViolation(_ violation: SchemaViolation) {
        guard PreferencesLogger.admit(.schemaViolation, summarizingTo: logger) else { return }
        // A private key's value stays out of the journal, refused or not.
        let isPrivate = appDomain.privateKeys.contains(violation.key)
        logger.warning(
            "\(domain): refused to set \(violation.loggedDescription(isPrivate: isPrivate)); the key keeps its value",
            metadata: [
                PreferencesLogField.messageID: .string(PreferencesLogEvent.schemaViolation.messageID),
                PreferencesLogField.domain: .string(domain),
                PreferencesLogField.keys: .array([.string(violation.key)]),
                PreferencesLogField.value: .string(violation.loggedValue(isPrivate: isPrivate)),
                PreferencesLogField.rule: .string(violation.rule.description),
                PreferencesLogField.schema: .string(violation.schemaPath),
            ])
    }
}
