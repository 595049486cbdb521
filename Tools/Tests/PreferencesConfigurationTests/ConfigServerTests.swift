import AsyncHTTPClient
import Foundation
import Glibc
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// `preferences-config-server` as a process of its own on loopback, with a private
/// preferences home, asked over HTTP and changed by the real `defaults` tool.
@Suite("The swift-configuration example HTTP server")
struct ConfigServerTests {
    @Test("answers with what defaults write sets, without a restart, and stops cleanly on SIGTERM")
    func answersFollowDefaultsWrite() async throws {
        let fixture = try ProviderFixture()
        let server = try await RunningConfigServer(fixture)
        #expect(try await server.get("/") == "Hello, world!")

        try await fixture.defaults(["write", server.domain, "greeting", "Bonjour"])
        #expect(await server.answer(to: "/", becomes: "Bonjour, world!"))
        // The flag, as a dictionary entry: the configuration key features.shout.
        try await fixture.defaults(["write", server.domain, "features", "-dict", "shout", "-bool", "yes"])
        #expect(await server.answer(to: "/?name=Ada", becomes: "BONJOUR, ADA!"))

        await server.stop()
    }

    @Test("falls back to the default for a value of the wrong type and for a deleted key")
    func fallsBackToDefaults() async throws {
        let fixture = try ProviderFixture()
        let server = try await RunningConfigServer(fixture)
        try await fixture.defaults(["write", server.domain, "greeting", "Hej"])
        try await fixture.defaults(["write", server.domain, "features", "-dict", "shout", "-bool", "yes"])
        #expect(await server.answer(to: "/", becomes: "HEJ, WORLD!"))

        // A number is not a string: the greeting is the default again, the flag still on.
        try await fixture.defaults(["write", server.domain, "greeting", "-int", "42"])
        #expect(await server.answer(to: "/", becomes: "HELLO, WORLD!"))
        // "maybe" is no boolean: the flag is off again.
        try await fixture.defaults(["write", server.domain, "features", "-dict", "shout", "-string", "maybe"])
        #expect(await server.answer(to: "/", becomes: "Hello, world!"))

        try await fixture.defaults(["write", server.domain, "greeting", "Hej"])
        #expect(await server.answer(to: "/", becomes: "Hej, world!"))
        try await fixture.defaults(["delete", server.domain, "greeting"])
        #expect(await server.answer(to: "/", becomes: "Hello, world!"))

        await server.stop()
    }

    @Test("refuses an invalid domain name at start")
    func refusesInvalidDomain() async throws {
        let fixture = try ProviderFixture()
        let server = try Subprocess(RunningConfigServer.path, ["--domain", "../etc"], environment: fixture.environment)
        #expect(await server.wait(timeout: .seconds(30)) != 0)
        #expect(!server.timedOut)
        #expect(server.output.isEmpty, "it printed an address: \(server.output)")
        #expect(server.errorOutput.contains("\"../etc\""), "\(server.errorOutput)")
    }
}

/// A `preferences-config-server` process serving `com.example.server` from a fixture's
/// private preferences home, on a port the system chose.
struct RunningConfigServer {
    static let path = builtProductsDirectory.appendingPathComponent("preferences-config-server").path

    let domain = "com.example.server"
    let process: Subprocess
    /// `http://127.0.0.1:PORT`, the first line the server printed.
    let address: String

    /// Starts the server and waits (a bounded wait) for the address it prints once listening.
    init(_ fixture: ProviderFixture) async throws {
        process = try Subprocess(Self.path, ["--domain", domain], environment: fixture.environment)
        guard let line = await process.waitForLine(within: .seconds(60), where: { _ in true }),
            line.text.hasPrefix("http://127.0.0.1:")
        else {
            process.signal(SIGKILL)
            throw FixtureFailure(description: "preferences-config-server printed no address: \(process.output) \(process.errorOutput)")
        }
        address = line.text
    }

    /// The answer to a GET of `path`, without its final newline, waiting at most `limit` (the
    /// client retries a refused connection until then).
    func get(_ path: String, within limit: TimeAmount = .seconds(10)) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: address + path), timeout: limit)
        let body = try await response.body.collect(upTo: 1 << 16)
        guard response.status == .ok else {
            throw FixtureFailure(description: "GET \(path): \(response.status) \(String(buffer: body))")
        }
        return String(buffer: body).trimmingCharacters(in: .newlines)
    }

    /// Whether the answer to `path` becomes `expected`, asking again and again for up to 10 s:
    /// a bound on a failure only (a change arrives in milliseconds), never a timing check.
    func answer(to path: String, becomes expected: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        var last = ""
        repeat {
            do {
                last = try await get(path)
            } catch {
                last = "\(error)"
            }
            if last == expected { return true }
            try? await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        Issue.record("GET \(path) answered \"\(last)\", not \"\(expected)\"")
        return false
    }

    /// Sends SIGTERM and requires a clean exit (status 0, within 10 s), after which the port
    /// no longer answers (for a second, as the client keeps trying).
    func stop() async {
        process.signal(SIGTERM)
        await process.wait(timeout: .seconds(10))
        #expect(!process.timedOut, "still running 10 s after SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(process.errorOutput)")
        await #expect(throws: (any Error).self) { _ = try await get("/", within: .seconds(1)) }
    }
}
