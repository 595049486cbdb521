import Foundation
import JournaldLogging
import Logging
import Preferences
import PreferencesService
import ServiceLifecycle
import UnixSignals

/// `preferences-greeter`: the example systemd user service (`systemd/preferences-greeter.service`).
///
/// Runs the greeter beside a ``PreferencesFlushService`` in a `ServiceGroup` that shuts down
/// gracefully on SIGTERM and SIGINT, logging to journald. Exits 0 after a graceful shutdown
/// whose final flush succeeded, and 1 otherwise.
@main
enum GreeterCommand {
    static func main() async {
        LoggingSystem.bootstrap { JournaldLogHandler.makeHandler(label: $0) }
        let logger = Logger(label: GreeterSettings.domain)

        let store: PreferenceStore
        do {
            store = try PreferenceStore(domain: GreeterSettings.domain)
        } catch {
            logger.critical("Cannot open the preferences domain: \(error)")
            exit(1)
        }
        store.register(defaults: GreeterSettings.registeredDefaults)

        let notifier = SystemdNotifier()
        // Shut down in reverse order: the greeter first (it may still set values), then the
        // flush service, whose last flush writes them.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: PreferencesFlushService(stores: [store], logger: logger)),
                    .init(service: GreeterService(store: store, notifier: notifier, logger: logger)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch {
            logger.critical("Stopped with an error: \(error)")
            exit(1)
        }
        exit(0)
    }
}
