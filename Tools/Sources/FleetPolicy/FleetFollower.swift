import Foundation
import DeclaredSettings
import JournaldLogging
package import Logging
package import Preferences

/// Follows fleet policy from a ``FleetPolicySource`` and keeps this machine's managed layer
/// equal to it: the loop of `preferences-fleet`.
///
/// It reads the whole prefix once, writes every domain's managed file, then applies the
/// changes that follow one revision at a time: the changes of one revision (one put, or one
/// etcd transaction) become one atomic replace of each managed file they touch, through the
/// library's own write path (``PreferenceFiles/replaceManagedDomain(_:named:origin:)``).
///
/// - A lost source (a member killed, the network down) keeps the files as they are and is
///   followed again from the revision after the last one applied, after a short back-off:
///   nothing is lost, nothing applied twice, the order kept.
/// - A compaction past that revision makes it read the whole prefix again
///   (``FleetPolicy/resynchronize(with:)``).
/// - A value that cannot be used is refused with a warning and the key keeps its previous
///   value (``FleetRefusal``); a domain file that cannot be written is logged and written
///   again after the next change.
/// - A value the domain's schema on this machine refuses is not written: the key keeps the
///   value written before (``FleetValidation``).
/// - After each domain is written, its ``FleetStatus`` (the revision, the file's digest, what
///   was refused and why) goes to the ``reporter``, which never makes the follower wait.
package struct FleetFollower: Sendable {
    /// What happened, for the caller to report (to systemd, say).
    package enum Event: Sendable {
        /// The whole prefix was read and applied, at this revision.
        case synchronized(revision: Int64)
        /// The changes of one revision were applied to these domains' files.
        case applied(revision: Int64, domains: [DomainName])
        /// The source could not be reached or was lost; the files are kept as they are.
        case unavailable(String)
    }

    /// Where the policy comes from.
    package let source: any FleetPolicySource
    /// The merge, with the prefix, this machine's groups and host name.
    package let initialPolicy: FleetPolicy
    /// Where the managed files are written.
    package let files: PreferenceFiles
    /// Where refusals, losses and resynchronisations are logged.
    package let logger: Logger
    /// Where each domain's status goes once it is applied; nil reports nothing.
    package var reporter: FleetStatusReporter?
    /// The first wait after a lost source; doubled up to ``maximumRetryDelay``.
    package var firstRetryDelay: Duration = .milliseconds(100)
    /// The longest wait between attempts.
    package var maximumRetryDelay: Duration = .seconds(5)

    /// Creates a follower.
    package init(source: any FleetPolicySource, policy: FleetPolicy, files: PreferenceFiles, logger: Logger) {
        self.source = source
        self.initialPolicy = policy
        self.files = files
        self.logger = logger
    }

    /// Follows the source until the task is cancelled, telling `report` what happens.
    package func run(report: @Sendable (Event) -> Void = { _ in }) async {
        var state = State(policy: initialPolicy)
        var delay = firstRetryDelay
        while !Task.isCancelled {
            do {
                if state.applied == nil {
                    let revision = try await synchronize(&state)
                    report(.synchronized(revision: revision))
                }
                for try await changes in source.changes(prefix: state.policy.prefix, from: state.applied! + 1) {
                    for (revision, domains) in apply(changes, to: &state) {
                        report(.applied(revision: revision, domains: domains))
                    }
                    delay = firstRetryDelay
                }
                // The stream ended without an error (the task was cancelled, or the server
                // closed it): follow again from the same revision.
            } catch let compaction as FleetCompaction {
                logger.warning(
                    "fleet policy: \(compaction) after revision \(state.applied ?? 0); reading the whole prefix again",
                    metadata: [JournalFieldName.messageID: .string(FleetLogEvent.resynchronizing.messageID)])
                state.applied = nil
                continue
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                let message = "\(error)"
                if state.lastLoss != message {
                    logger.warning(
                        "fleet policy: the source is unavailable (\(message)); the managed files are kept as they are and it is tried again",
                        metadata: [JournalFieldName.messageID: .string(FleetLogEvent.unavailable.messageID)])
                    state.lastLoss = message
                }
                report(.unavailable(message))
            }
            if Task.isCancelled { return }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, maximumRetryDelay)
        }
    }

    /// The follower's progress.
    struct State {
        /// The policy as applied so far.
        var policy: FleetPolicy
        /// The last revision applied; nil before the first whole read, or after a compaction.
        var applied: Int64?
        /// Domains whose file could not be written: written again after the next change.
        var unwritten: Set<DomainName> = []
        /// The last loss logged, so a source that stays away is logged once.
        var lastLoss: String?
        /// The values last written to each domain's managed file, which a refused value keeps.
        var written: [DomainName: [String: PropertyListValue]] = [:]
    }

    /// Reads the whole prefix and writes every domain it or the previous policy names; on the
    /// first read, also removes managed files this service wrote for domains no longer named
    /// (their keys were deleted while it was not running).
    private func synchronize(_ state: inout State) async throws -> Int64 {
        let snapshot = try await source.snapshot(prefix: state.policy.prefix)
        // Every domain reported so far, not only those with an applied key: one known only by a
        // refusal (or a rollout) whose key went during a compaction's gap needs a fresh status.
        let before = state.policy.reportedDomains
        for refusal in state.policy.resynchronize(with: snapshot.entries) { log(refusal) }
        var domains = before.union(state.policy.reportedDomains).union(state.unwritten)
        if state.applied == nil && before.isEmpty {
            for name in files.managedDomainNames() where files.managedOrigin(ofDomain: name)?.summary.hasPrefix(Self.originPrefix) == true {
                if let domain = try? DomainName(name) { domains.insert(domain) }
            }
        }
        write(domains.sorted { $0.rawValue < $1.rawValue }, at: snapshot.revision, state: &state)
        state.applied = snapshot.revision
        state.lastLoss = nil
        logger.info(
            "fleet policy: read \(snapshot.entries.count) keys under \(state.policy.prefix) at revision \(snapshot.revision); \(state.policy.managedDomains.count) domains managed",
            metadata: [JournalFieldName.messageID: .string(FleetLogEvent.synchronized.messageID), "FLEET_REVISION": .string(String(snapshot.revision))])
        return snapshot.revision
    }

    /// Applies changes revision by revision (skipping any at or before the last applied),
    /// writing the domains each revision touched.
    private func apply(_ changes: [FleetChange], to state: inout State) -> [(Int64, [DomainName])] {
        var results: [(Int64, [DomainName])] = []
        var index = changes.startIndex
        while index < changes.endIndex {
            let revision = changes[index].revision
            var end = index
            while end < changes.endIndex && changes[end].revision == revision { end += 1 }
            defer { index = end }
            guard revision > state.applied ?? .min else { continue }
            var touched: Set<DomainName> = state.unwritten
            for change in changes[index..<end] {
                switch change.kind {
                case .put(let value):
                    do {
                        if let domain = try state.policy.put(key: change.key, value: value, revision: revision) { touched.insert(domain) }
                    } catch {
                        log(error)
                        // The domain's status now says what was refused.
                        if let domain = error.domain { touched.insert(domain) }
                    }
                case .delete:
                    if let domain = state.policy.delete(key: change.key) { touched.insert(domain) }
                }
            }
            let domains = touched.sorted { $0.rawValue < $1.rawValue }
            write(domains, at: revision, state: &state)
            state.applied = revision
            logger.info(
                "fleet policy: applied revision \(revision) to \(domains.isEmpty ? "no domain" : domains.map(\.rawValue).joined(separator: ", "))",
                metadata: [
                    JournalFieldName.messageID: .string(FleetLogEvent.applied.messageID), "FLEET_REVISION": .string(String(revision)),
                    "FLEET_DOMAINS": .array(domains.map { .string($0.rawValue) }),
                ])
            results.append((revision, domains))
        }
        return results
    }

    /// How the origin of every managed file this service writes begins.
    static let originPrefix = "fleet policy "

    /// Writes each domain's managed file from the policy (removing it when no key sets it),
    /// keeping the previous value of any key the domain's schema refuses, and reports each
    /// domain's status as applied at `revision`.
    private func write(_ domains: [DomainName], at revision: Int64, state: inout State) {
        for domain in domains {
            var reasons = state.policy.refusals(of: domain).map { FleetStatus.Reason(key: $0.key, reason: $0.reason) }
            let schema: PreferenceSchema?
            do {
                schema = try files.schema(for: .named(domain.rawValue))
            } catch {
                // A schema that cannot be read refuses nothing (as a store using it would
                // not), and the status says it could not be used.
                schema = nil
                reasons.append(FleetStatus.Reason(key: "", reason: "the domain's schema cannot be used: \(error.reason)"))
            }
            let previous = state.written[domain] ?? managedValues(of: domain)
            let validation = FleetValidation(policy: state.policy.managedValues(of: domain) ?? [:], schema: schema, previous: previous)
            reasons += validation.reasons
            if !validation.isValid {
                logger.warning(
                    "fleet policy: \(domain) refused \(validation.reasons.map(\.reason).joined(separator: "; ")); those keys keep their previous values",
                    metadata: [JournalFieldName.messageID: .string(FleetLogEvent.invalid.messageID), "PREFERENCES_DOMAIN": .string(domain.rawValue)])
            }
            let sources = state.policy.sources(of: domain)
            let summary = Self.originPrefix + sources.map { "\($0.key) at revision \($0.revision)" }.joined(separator: ", ")
            let refused = Set(validation.reasons.map(\.key))
            let keys = state.policy.keySources(of: domain).filter { !refused.contains($0.key) }
                .mapValues { "fleet policy \($0.key) at revision \($0.revision)" }
            do {
                try files.replaceManagedDomain(validation.values, named: domain.rawValue, origin: CommitOrigin(summary: summary, keys: keys))
                state.unwritten.remove(domain)
                state.written[domain] = validation.values
            } catch {
                state.unwritten.insert(domain)
                reasons.append(FleetStatus.Reason(key: "", reason: "the managed file could not be written: \(error.reason)"))
                logger.error(
                    "fleet policy: the managed file of \(domain) could not be written: \(error); it is written again after the next change",
                    metadata: [JournalFieldName.messageID: .string(FleetLogEvent.writeFailed.messageID), "PREFERENCES_DOMAIN": .string(domain.rawValue)])
            }
            reporter?.record(
                FleetStatus(
                    host: initialPolicy.hostname, domain: domain.rawValue, revision: revision, digest: managedDigest(of: domain),
                    reasons: reasons, time: Date(), groups: initialPolicy.groups))
        }
    }

    /// The values of a domain's managed file as it is now; empty when it has none or cannot
    /// be read (the first write of this run keeps what an earlier run applied).
    private func managedValues(of domain: DomainName) -> [String: PropertyListValue] {
        guard let path = files.managedFilePath(ofDomain: domain.rawValue), let data = FileManager.default.contents(atPath: path),
            case .dictionary(let values)? = try? PropertyListValue(decodingAnyFormat: data)
        else { return [:] }
        return values
    }

    /// The digest of a domain's managed file as written; nil when it has none.
    private func managedDigest(of domain: DomainName) -> String? {
        guard let path = files.managedFilePath(ofDomain: domain.rawValue), let data = FileManager.default.contents(atPath: path) else { return nil }
        return FleetStatus.digest(of: data)
    }

    private func log(_ refusal: FleetRefusal) {
        logger.warning(
            "fleet policy: refused \(refusal)",
            metadata: [
                JournalFieldName.messageID: .string(FleetLogEvent.refused.messageID),
                "FLEET_KEY": .string(refusal.key),
                "FLEET_REVISION": .string(String(refusal.revision)),
            ])
    }
}

/// The journald message ids of the fleet service's entries, so `journalctl MESSAGE_ID=…`
/// finds every one of a kind.
package enum FleetLogEvent: String, Sendable, CaseIterable {
    /// An etcd value was refused; the key keeps its previous value (warning).
    case refused
    /// The whole prefix was read and applied (info).
    case synchronized
    /// The changes of one revision were applied (info).
    case applied
    /// A compaction lost the changes to follow; the whole prefix is read again (warning).
    case resynchronizing
    /// etcd could not be reached; the managed files are kept (warning).
    case unavailable
    /// A managed file could not be written (error).
    case writeFailed
    /// A policy value broke the domain's schema on this machine and was not applied (warning).
    case invalid
    /// A status could not be written to etcd; it is kept and written later (warning).
    case statusUnwritten

    /// The 128-bit id, as journald writes it.
    package var messageID: String {
        switch self {
        case .refused: "44fc78e75135406c9cdcee020d6f214d"
        case .synchronized: "996fcbf770314a8f8e95af2e45733dd5"
        case .applied: "14d8a1a003dd470ba64c27f1684a0630"
        case .resynchronizing: "66c613601f2e4709948923ff4b6a2820"
        case .unavailable: "507efe5e9ed5435b81124f20ed1ddd3b"
        case .writeFailed: "03e25b2c0caa46a2bc2d292b42bfa5c7"
        case .invalid: "b1f0d6c2a87e4a35b9d4e0c3f5a61e72"
        case .statusUnwritten: "6a3e9c1d07b54f28a1c6e8d2b4f09a53"
        }
    }
}
