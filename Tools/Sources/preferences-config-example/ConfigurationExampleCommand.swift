import Configuration
import Foundation
import Logging
import PreferencesConfiguration
import ServiceLifecycle
import UnixSignals

/// `preferences-config-example`: a service that reads its settings from the preferences
/// domain `com.example.service` (or `$EXAMPLE_DOMAIN`) through swift-configuration and
/// applies `defaults write` changes live. The article ReadingThroughSwiftConfiguration.md
/// (in the Preferences DocC catalog) shows this code; the tests run it.
@main
enum ConfigurationExampleCommand {
    static func main() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardOutput(label: $0) }
        let domain = ProcessInfo.processInfo.environment["EXAMPLE_DOMAIN"] ?? "com.example.service"
        let logger = Logger(label: domain)
        let config = ConfigReader(provider: try PreferencesProvider(domain: domain))
        let group = ServiceGroup(
            services: [SettingsService(config: config, logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        try await group.run()
    }
}
