import ArgumentParser
import DefaultsCommand
import Foundation
import Hummingbird
import Logging
import SettingsPage
import SettingsServer

/// `preferences-settings`: the settings pages of this user's preferences domains, served on
/// loopback to the user who runs it.
@main
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preferences-settings",
        abstract: "Serve this user's preferences domains as live settings pages on 127.0.0.1.",
        discussion: """
            The first line of standard output is the address to open, with a token made at \
            start: http://127.0.0.1:PORT/?token=…  A request without that token (or the cookie \
            the first visit sets) is refused, and so is one whose Host is not 127.0.0.1 or \
            localhost with the port. Pages are drawn from each domain's Settings.bundle or \
            schema (a typed tree of its keys otherwise), show which layer every value comes \
            from, and change values through the library with the declared rules. Files are \
            found as the library finds them: PREFERENCES_HOME, PREFERENCES_SYSTEM_DIR, \
            PREFERENCES_SCHEMA_PATH and the XDG variables.

            Examples:
              preferences-settings                      # a port chosen by the system
              preferences-settings --port 8765 --url-file "$XDG_RUNTIME_DIR/preferences-settings.url"
            """
    )

    @Option(help: "The port on 127.0.0.1 to listen on; 0 lets the system choose.") var port: Int = 0
    @Option(help: "Also write the address (with its token) to this file, readable by you alone.") var urlFile: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        let token = Self.randomToken()
        let site = SettingsSite(environment: ProcessInfo.processInfo.environment, csrfToken: Self.randomToken())
        let address = ListeningAddress()
        // Hummingbird logs to standard output by default; ours stays the address's alone.
        var logger = Logger(label: "preferences-settings") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let urlFile = urlFile
        let application = Application(
            router: SettingsRoutes.router(site: site, address: address, token: token),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "preferences-settings"),
            onServerRunning: { channel in
                address.bind(port: channel.localAddress?.port ?? 0)
                let url = "http://127.0.0.1:\(address.port)/?token=\(token)"
                if let urlFile { Self.write(url, to: urlFile) }
                // Unbuffered, so a script reading the first line gets it now.
                FileHandle.standardOutput.write(Data((url + "\n").utf8))
            },
            logger: logger)
        try await application.runService()
    }

    /// 32 random bytes in hexadecimal, from the system's cryptographic source.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Writes the address to a file of mode 0600, replacing it whole.
    static func write(_ url: String, to path: String) {
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((url + "\n").utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            FileHandle.standardError.write(Data("preferences-settings: cannot write the address to \(path)\n".utf8))
            return
        }
    }
}
