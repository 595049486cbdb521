import Foundation
import JournaldLogging
import Logging
import Preferences
import PreferencesService
import ServiceLifecycle
import UnixSignals

/// The example service: logs a greeting every few seconds, both taken from preferences, and
/// applies changes to them live.
///
/// - A change from any process (`defaults write org.swift-preferences.greeter greeting
///   -string Bonjour`) reaches the store's observers within milliseconds; the service sends
///   `RELOADING=1`, applies it, updates `STATUS=` and sends `READY=1`.
/// - SIGHUP (`systemctl --user reload`) re-reads every file now, the same way.
/// - Graceful shutdown (SIGTERM) records which run stopped and when, and returns; the
///   ``PreferencesFlushService`` that runs beside it then writes that to disk.
struct GreeterService: Service {
    /// The journal `MESSAGE_ID` of "Started", "Settings changed" and "Reloaded" entries,
    /// explained in `systemd/swift-preferences.catalog`.
    static let configurationAppliedMessageID = "76d36e602b80436eb2a4ff7d903d3394"

    let store: PreferenceStore
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async {
        let (events, continuation) = AsyncStream.makeStream(of: GreeterEvent.self)
        let observations = [GreeterSettings.greetingKey, GreeterSettings.intervalKey].map { key in
            store.observe(key, options: []) { _ in continuation.yield(.settingsChanged) }
        }
        // Trapped before READY=1: SIGHUP's default action would end the process.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let hangupTask = Task {
            for await _ in hangups { continuation.yield(.reloadRequested) }
        }
        let watchdogTask = notifier.watchdogInterval.map { Self.repeating(.watchdog, every: $0, into: continuation) }

        reportFileProblems()
        var settings = GreeterSettings(store: store, logger: logger)
        logger.notice("Started: \(settings.statusText)", metadata: appliedFields(settings, reload: "started"))
        notifier.status(settings.statusText)
        notifier.ready()

        var ticker = Self.repeating(.tick, every: settings.duration, into: continuation)
        await withTaskCancellationOrGracefulShutdownHandler {
            loop: for await event in events {
                switch event {
                case .tick:
                    logger.info("\(settings.greeting)", metadata: settings.metadata)
                case .watchdog:
                    notifier.watchdog()
                case .settingsChanged, .reloadRequested:
                    let isRequested = if case .reloadRequested = event { true } else { false }
                    if isRequested {
                        notifier.reloading()
                        store.synchronize()
                    }
                    let applied = GreeterSettings(store: store, logger: logger)
                    // A reload delivers the changes it finds as well; those change nothing more.
                    guard isRequested || applied != settings else { continue }
                    if !isRequested {
                        notifier.reloading()
                    }
                    if applied.interval != settings.interval {
                        ticker.cancel()
                        ticker = Self.repeating(.tick, every: applied.duration, into: continuation)
                    }
                    settings = applied
                    logger.notice(
                        "\(isRequested ? "Reloaded" : "Settings changed"): \(settings.statusText)",
                        metadata: appliedFields(settings, reload: isRequested ? "requested" : "changed"))
                    notifier.status(settings.statusText)
                    notifier.ready()
                case .stop:
                    break loop
                }
            }
        } onCancelOrGracefulShutdown: {
            continuation.yield(.stop)
        }

        ticker.cancel()
        hangupTask.cancel()
        watchdogTask?.cancel()
        observations.forEach { $0.cancel() }
        notifier.stopping()
        notifier.status("Stopping")
        // Which run stopped, and when: set here, written by the flush service's last flush.
        store[.lastStoppedInvocation] = ProcessInfo.processInfo.environment["INVOCATION_ID"] ?? ""
        store[.lastStoppedAt] = Date()
        logger.notice("Stopping", metadata: settings.metadata)
    }

    /// The journal fields of an entry saying `settings` are now in use; `reload` says why
    /// (`started`, `changed` by another process, or `requested` by SIGHUP).
    private func appliedFields(_ settings: GreeterSettings, reload: String) -> Logger.Metadata {
        settings.metadata.merging([
            JournalFieldName.messageID: .string(Self.configurationAppliedMessageID),
            "GREETER_RELOAD": .string(reload),
            "PREFERENCES_DOMAIN": .string(store.domain),
        ]) { $1 }
    }

    /// Logs each unusable layer file (a corrupt domain file, say) with its path: the service
    /// goes on with the other layers and its registered defaults.
    private func reportFileProblems() {
        for problem in store.fileProblems {
            logger.error(
                "Ignoring an unusable preferences file, using the other layers and the defaults: \(problem)",
                metadata: ["PREFERENCES_PATH": .string(problem.path ?? ""), "PREFERENCES_DOMAIN": .string(store.domain)])
        }
    }

    /// A task that yields `event` every `interval` until cancelled.
    private static func repeating(
        _ event: GreeterEvent, every interval: Duration, into continuation: AsyncStream<GreeterEvent>.Continuation
    ) -> Task<Void, Never> {
        Task {
            while (try? await Task.sleep(for: interval)) != nil {
                continuation.yield(event)
            }
        }
    }
}
