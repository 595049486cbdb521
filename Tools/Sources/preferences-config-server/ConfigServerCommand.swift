import ArgumentParser
import Configuration
import Foundation
import Hummingbird
import Logging
import PreferencesConfiguration

/// `preferences-config-server`: an example HTTP service on loopback that reads its settings
/// through swift-configuration's `ConfigReader` from a preferences domain, so that a
/// `defaults write` from any process changes what it answers, with no restart. The article
/// ReadingThroughSwiftConfiguration.md (in the Preferences DocC catalog) shows it; the tests
/// run it, and Benchmarks/Harness/ConfigLatency times it.
@main
struct ConfigServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preferences-config-server",
        abstract: "An example HTTP service on 127.0.0.1 whose answers follow its preferences live.",
        discussion: """
            GET /?name=NAME answers "GREETING, NAME!" (NAME is world unless given). Its \
            settings, read through swift-configuration from the domain (com.example.server \
            unless --domain), apply to the next request after any process changes them:
              greeting         a string; Hello when unset or not a string
              features.shout   a boolean flag: capitals when true; off when unset or not a boolean
            The first line of standard output is the address it listens on. SIGTERM or \
            SIGINT stops it after the requests in progress.

            Examples:
              preferences-config-server --port 8080 &
              defaults write com.example.server greeting Bonjour
              defaults write com.example.server features -dict shout -bool yes
            """
    )

    @Option(help: "The port on 127.0.0.1 to listen on; 0 lets the system choose.") var port: Int = 0
    @Option(help: "The preferences domain the settings are read from.") var domain = "com.example.server"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        // The provider needs no service of its own: the store's inotify watcher pushes each
        // change into its current snapshot (swift-configuration's ReloadingFileProvider, by
        // contrast, must run in the service group to poll its file).
        let config = ConfigReader(provider: try PreferencesProvider(domain: domain))
        // Standard output is the address's alone, for a script or test that reads its first line.
        var logger = Logger(label: "preferences-config-server") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let application = Application(
            router: Self.router(config: config),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "preferences-config-server"),
            onServerRunning: { channel in
                // Unbuffered, so a reader of the first line gets it now.
                FileHandle.standardOutput.write(Data("http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger)
        try await application.runService()
    }

    /// The one route. Each request reads the settings from `config.snapshot()`, swift-
    /// configuration's "get" access pattern for request handlers: no I/O and no watch task,
    /// since the provider already holds the domain's current version, and one snapshot keeps
    /// the greeting and the flag from the same version.
    static func router(config: ConfigReader) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { request, _ in
            let settings = GreetingSettings(config.snapshot())
            let name = request.uri.queryParameters.get("name").map { String($0) } ?? "world"
            return settings.answer(to: name) + "\n"
        }
        return router
    }
}
