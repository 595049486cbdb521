import Foundation
import JournaldLogging
package import Logging
import Preferences
import Synchronization

/// Writes a host's statuses (``FleetStatus``) and enrolment (``FleetEnrolment``) to the fleet's
/// store, on a lease it keeps alive: the reporting half of `preferences-fleet follow`.
///
/// - ``record(_:)`` never waits: the follower hands over each status as it applies a change
///   and goes on. A background task puts the newest status of each domain, at once, so a
///   status follows its policy within milliseconds while etcd answers.
/// - While the store is away, the newest status of each domain is kept (older ones are
///   replaced, not queued) and put when a member answers again. Nothing is lost but
///   statuses that a newer one replaced.
/// - The lease is renewed every third of its time. If it expired all the same (etcd was away
///   longer than the lease), a new one is granted and every domain's newest status put
///   again: silence lasts as long as the outage, never longer.
/// - When the reporter stops (SIGTERM), it revokes the lease: a host that no longer follows
///   the fleet shows as silent at once, not as applied.
package final class FleetStatusReporter: Sendable {
    /// Where statuses go.
    package let store: any FleetStatusStore
    /// Where in the store.
    package let layout: FleetLayout
    /// What the host says of itself at start.
    package let enrolment: FleetEnrolment
    /// How long the lease lasts without a renewal, in seconds.
    package let leaseSeconds: Int64
    /// Where losses of the store are logged.
    package let logger: Logger

    private struct State {
        /// The newest status of each domain not yet put (with the current lease).
        var pending: [DomainName: FleetStatus] = [:]
        /// The newest status of each domain put, to put again on a new lease.
        var written: [DomainName: FleetStatus] = [:]
        /// The current lease, nil before the first grant or once it is gone.
        var lease: Int64?
        /// Whether the enrolment was put with the current lease's generation of statuses.
        var enrolled = false
        /// Whether a failed write was logged and not yet followed by a successful flush.
        var lossLogged = false
        /// Whether a failed renewal was logged and not yet followed by a successful one: apart
        /// from writes, so a store that renews but refuses writes is not logged again and again.
        var renewalLossLogged = false
    }

    private let state = Mutex(State())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>

    /// Creates a reporter; nothing is written until ``run()``.
    package init(store: any FleetStatusStore, layout: FleetLayout, enrolment: FleetEnrolment, leaseSeconds: Int64, logger: Logger) {
        self.store = store
        self.layout = layout
        self.enrolment = enrolment
        self.leaseSeconds = leaseSeconds
        self.logger = logger
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands over the newest status of a domain; returns at once.
    package func record(_ status: FleetStatus) {
        guard let domain = try? DomainName(status.domain) else { return }
        state.withLock { $0.pending[domain] = status }
        wake.yield()
    }

    /// The statuses handed over and not yet put, for tests and for the service's own status line.
    package var unwrittenCount: Int { state.withLock { $0.pending.count } }

    /// Puts statuses and keeps the lease alive until the task is cancelled; then revokes the lease.
    package func run() async {
        wake.yield()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.writeLoop() }
            group.addTask { await self.keepAliveLoop() }
            await group.waitForAll()
        }
        if let lease = state.withLock({ $0.lease }) {
            // In a task of its own: this one is cancelled, and a cancelled request is not
            // sent. Bounded: a store that is away must not hold up the service's shutdown.
            let revoking = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await self.store.revoke(lease: lease) }
                    group.addTask { try? await Task.sleep(for: .seconds(2)) }
                    await group.next()
                    group.cancelAll()
                }
            }
            await revoking.value
        }
    }

    /// Puts whatever is pending each time something is recorded (or the lease changed),
    /// trying again with a back-off while the store is away.
    private func writeLoop() async {
        for await _ in wakes {
            var delay = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await flush()
                    break
                } catch is CancellationError {
                    return
                } catch is FleetLeaseGone {
                    // Not an outage: the store answered that the lease expired (it was away
                    // longer than the lease, or revoked it). A new lease is granted at once.
                    logger.info("fleet status: the lease expired; a new one is granted and every status written again")
                    try? await Task.sleep(for: .milliseconds(50))
                    continue
                } catch {
                    noteLoss(error)
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                }
            }
            if Task.isCancelled { return }
        }
    }

    /// Grants a lease if there is none (everything written then counts as pending again),
    /// puts the enrolment once, then each pending status.
    private func flush() async throws {
        var lease = state.withLock { $0.lease }
        if lease == nil {
            let granted = try await store.grantLease(seconds: leaseSeconds)
            state.withLock { state in
                state.lease = granted
                // The old lease's keys are gone: put every domain's newest status again, and
                // the enrolment too (an administrator may have deleted it, or it never landed).
                state.pending = state.written.merging(state.pending) { _, newer in newer }
                state.enrolled = false
            }
            lease = granted
        }
        if !state.withLock({ $0.enrolled }) {
            try await store.put(key: layout.enrolmentKey(host: enrolment.host), value: try FleetJSON.encode(enrolment), lease: nil)
            state.withLock { $0.enrolled = true }
        }
        let batch = state.withLock { $0.pending }
        for (domain, status) in batch.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            do {
                try await store.put(key: layout.statusKey(host: enrolment.host, domain: domain), value: try FleetJSON.encode(status), lease: lease)
            } catch is FleetLeaseGone {
                state.withLock { state in
                    if state.lease == lease { state.lease = nil }
                }
                throw FleetLeaseGone()
            }
            state.withLock { state in
                // A newer status recorded meanwhile stays pending.
                if state.pending[domain] == status { state.pending[domain] = nil }
                state.written[domain] = status
            }
        }
        let recovered = state.withLock { state in
            defer { state.lossLogged = false }
            return state.lossLogged
        }
        if recovered { logger.info("fleet status: the store answers again; every status is written") }
    }

    /// Renews the lease every third of its time; when it is gone, drops it and wakes the
    /// writer, which grants a new one and puts everything again.
    private func keepAliveLoop() async {
        let interval = Duration.milliseconds(max(leaseSeconds * 1000 / 3, 200))
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled, let lease = state.withLock({ $0.lease }) else { continue }
            do {
                if try await !store.keepAlive(lease: lease) {
                    state.withLock { state in
                        if state.lease == lease { state.lease = nil }
                    }
                    wake.yield()
                }
                // The store answers: the next outage of renewals is logged again.
                state.withLock { $0.renewalLossLogged = false }
            } catch {
                // The store is away: the next renewal tries again; if the lease ran out
                // meanwhile, the first renewal that answers says so.
                noteLoss(error, renewing: true)
            }
        }
    }

    /// Logs the first failure of an outage only, of writes and of renewals each.
    private func noteLoss(_ error: any Error, renewing: Bool = false) {
        let first = state.withLock { state in
            if renewing {
                defer { state.renewalLossLogged = true }
                return !state.renewalLossLogged
            }
            defer { state.lossLogged = true }
            return !state.lossLogged
        }
        guard first else { return }
        logger.warning(
            "fleet status: the store is unavailable (\(error)); the newest status of each domain is kept and written when it answers",
            metadata: [JournalFieldName.messageID: .string(FleetLogEvent.statusUnwritten.messageID)])
    }
}
