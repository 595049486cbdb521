import Foundation
import Logging
import PropertyList

extension PersistentDomain {
    /// The hidden file beside the domain file that says the domain needs no Foundation import
    /// (it was imported once, or it existed here already): `.<fileName>.foundation-imported`.
    /// Hidden, so never taken for a domain.
    package var foundationImportMarker: String { file.siblingPath(".\(file.fileName).foundation-imported") }

    /// What an import did.
    package struct FoundationImportOutcome: Sendable {
        /// The keys that took the Foundation file's values, sorted.
        package var imported: [String]
        /// The Foundation file's keys whose values the domain kept (it already had them).
        package var kept: [String]
    }

    /// Copies the values of corelibs-Foundation's file for this domain, `source`, into the
    /// domain as one commit whose origin names `source`, reading `source` with the care
    /// of any file this library reads (see ``DomainFile/readCheckedBytes(policy:role:confirmingName:)``:
    /// no links, the owner and mode checked, the size limit) and the bounded decoder, XML or
    /// binary. `source` is never changed.
    ///
    /// - Parameter intoNewDomainOnly: Only if the domain has no file and was never imported
    ///   (the automatic import at first open); false merges into an existing domain, keeping
    ///   the domain's own value of every key it has (`defaults import-foundation`).
    /// - Returns: What was imported; nil if `source` does not exist, or `intoNewDomainOnly`
    ///   found the domain already there.
    /// - Throws: ``PreferencesError`` naming `source` if it is refused, or the write's error;
    ///   nothing is written either way.
    package func importFoundationSettings(
        from source: DomainFile, intoNewDomainOnly: Bool, lockExisted: Bool = false
    ) throws(PreferencesError) -> FoundationImportOutcome? {
        guard source.path != file.path else { return nil }
        guard let (bytes, _) = try source.readCheckedBytes(policy: policy, role: "corelibs-Foundation's settings file") else { return nil }
        let top: PropertyListValue
        do throws(PropertyListError) {
            top = try PropertyListFile.decode(Data(bytes))
        } catch {
            throw PreferencesError(.invalidPropertyList, path: source.path, "corelibs-Foundation's settings file is not a valid property list: \(error)")
        }
        guard case .dictionary(let values) = top else {
            throw PreferencesError(.notADictionary, path: source.path, "corelibs-Foundation's settings file holds a \(top.typeName), not a dictionary")
        }
        let origin = CommitOrigin(summary: "imported from corelibs-Foundation's \(source.path)")
        guard let outcome = try writer.importValues(
            values, origin: origin, intoNewDomainOnly: intoNewDomainOnly, lockExisted: lockExisted, marker: foundationImportMarker)
        else { return nil }
        logger.info(
            "imported \(outcome.imported.count) of \(values.count) keys from corelibs-Foundation's \(source.path) into \(file.path)",
            metadata: [
                PreferencesLogField.messageID: .string(PreferencesLogEvent.foundationImported.messageID),
                PreferencesLogField.path: .string(file.path),
                PreferencesLogField.source: .string(source.path),
                PreferencesLogField.keys: .array(outcome.imported.map { .string($0) }),
            ])
        return FoundationImportOutcome(imported: outcome.imported, kept: outcome.kept)
    }

    /// The import a first open makes (see ``importFoundationSettings(from:intoNewDomainOnly:lockExisted:)``),
    /// only for a domain this library has never written: no file, no marker, and (checked under
    /// the lock) no lock file before. One `lstat` on every open of a domain that has its file;
    /// once per file per process otherwise, a second thread opening the domain meanwhile
    /// waiting for it. A refused file is logged as a warning naming it, and nothing is written.
    ///
    /// Skipped, to be tried at the next open, on a thread inside another domain's write (a
    /// transaction's or `modify`'s body opening a new domain): taking this domain's lock there
    /// could deadlock with a process that takes the two locks the other way round.
    package func importFoundationSettingsOnFirstOpen(from source: DomainFile) {
        guard file.identity() == nil, !SystemCalls.entryExists(foundationImportMarker) else { return }
        let thread = SystemCalls.currentThread()
        guard !PersistentDomain.all.contains(where: { $0.state.withLock { $0.writingThread == thread } }) else { return }
        foundationImport.run {
            // Looked at before the lock is taken, which creates it: a lock file without a domain
            // file is a domain that was written here and emptied since.
            let lockExisted = SystemCalls.entryExists(file.lockPath)
            do throws(PreferencesError) {
                _ = try importFoundationSettings(from: source, intoNewDomainOnly: true, lockExisted: lockExisted)
            } catch {
                logger.warning(
                    "corelibs-Foundation's settings \(source.path) were not imported into \(file.path), and nothing was written: \(error.reason); `defaults import-foundation` tries again",
                    metadata: [
                        PreferencesLogField.messageID: .string(PreferencesLogEvent.foundationImportRefused.messageID),
                        PreferencesLogField.error: .string(error.code.description),
                        PreferencesLogField.path: .string(file.path),
                        PreferencesLogField.source: .string(source.path),
                    ])
            }
        }
    }

}
