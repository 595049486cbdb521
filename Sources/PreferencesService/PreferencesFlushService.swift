// With the package's ServiceLifecycle trait only: it brings in swift-service-lifecycle.
#if ServiceLifecycle
import Dispatch
public import Logging
public import Preferences
public import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps preference stores written to disk and
/// writes whatever is still pending when the service group shuts down gracefully (SIGTERM).
///
/// ```swift
/// let group = ServiceGroup(
///     services: [PreferencesFlushService(stores: [store], logger: logger), myService],
///     gracefulShutdownSignals: [.sigterm], cancellationSignals: [.sigint], logger: logger)
/// try await group.run()
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order, so list this service first:
/// the services after it finish (and may still set values) before it makes the last flush.
///
/// Stores already write each set in the background; this service is the backstop. Every
/// `interval` it calls `flush()`, which writes nothing when nothing is pending and retries
/// a write that failed (a full disk, a lock held too long) with the error logged. On graceful
/// shutdown it flushes once more and returns, or throws the error if that last write failed,
/// so the process can exit with a failure instead of losing settings silently. Task
/// cancellation ends it the same way.
public struct PreferencesFlushService: Service {
    /// The stores this service flushes.
    public let stores: [PreferenceStore]
    /// How long it waits between flushes while running.
    public let interval: Duration
    private let logger: Logger

    /// Creates the service for `stores`, flushing them every `interval` and logging failed
    /// flushes to `logger`.
    public init(stores: [PreferenceStore], interval: Duration = .seconds(5), logger: Logger) {
        self.stores = stores
        self.interval = interval
        self.logger = logger
    }

    /// Flushes every `interval` until graceful shutdown or cancellation, then flushes once
    /// more.
    ///
    /// - Throws: the first `PreferencesError` of the final flush.
    public func run() async throws {
        let interval = interval
        let stores = stores
        let logger = logger
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await Task.sleep(for: interval)
                    await Self.offThePool {
                        for store in stores {
                            do throws(PreferencesError) {
                                try store.flush()
                            } catch {
                                // The store keeps the changes and retries; say so once per attempt.
                                logger.error("Could not write preferences domain \(store.domain): \(error)")
                            }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Graceful shutdown or cancellation: fall through to the final flush.
        }
        let failure = await Self.offThePool { () -> PreferencesError? in
            do throws(PreferencesError) {
                try flushAll()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Runs blocking work (a flush syncs files and may wait up to the lock timeout for
    /// another process) on a queue of its own, so it never holds one of the few threads of
    /// Swift's cooperative pool, which signal handling and every other task share.
    private static func offThePool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            flushQueue.async { continuation.resume(returning: work()) }
        }
    }

    /// The queue blocking flushes run on.
    private static let flushQueue = DispatchQueue(label: "swift-preferences.service-flush")

    /// Flushes every store, trying all of them even after a failure.
    private func flushAll() throws(PreferencesError) {
        var firstError: PreferencesError?
        for store in stores {
            do throws(PreferencesError) {
                try store.flush()
            } catch {
                logger.error("Could not write preferences domain \(store.domain) before stopping: \(error)")
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        logger.debug("Preferences written before stopping", metadata: ["domains": .array(stores.map { .string($0.domain) })])
    }
}
#endif  // ServiceLifecycle
