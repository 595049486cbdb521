import Configuration
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle service that applies its settings live: it watches
/// configuration snapshots and re-applies whenever any process changes the domain
/// (`defaults write com.example.service http -dict-add timeout -int 5`).
struct SettingsService: Service {
    let config: ConfigReader
    let logger: Logger

    func run() async throws {
        try await config.watchSnapshot { snapshots in
            var applied: ServiceSettings?
            // Ends on SIGTERM/SIGINT, when the service group shuts down gracefully.
            for await snapshot in snapshots.cancelOnGracefulShutdown() {
                let settings = ServiceSettings(snapshot)
                guard settings != applied else { continue }
                applied = settings
                // A real service would reconfigure its server here.
                logger.info("applied settings: \(settings)")
            }
        }
        logger.info("stopped")
    }
}
