import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SettingsPage
import SettingsServer
import TestSupport
import Testing

/// The access guard in front of the real routes, in-process: HummingbirdTesting's router
/// framework hands each request to the router as the server would, without a socket.
///
/// The framework names every request's authority `localhost`; a browser names the host and
/// port it connected to. ``ServerFixture`` puts a first middleware before the guard that makes
/// the request's `Host` header its authority, as the HTTP/1 server does.
@Suite("Access guard")
struct AccessGuardTests {
    static let domainPath = "/domains/com.example.app"
    static let change = #"{"changes": [{"key": "Name", "value": {"string": "written"}}]}"#

    @Test("a request without the start-up token, or with another, is 401 and names what to open")
    func noToken() async throws {
        let fixture = try ServerFixture()
        try await fixture.run { client in
            let otherToken = String(repeating: "0", count: ServerFixture.token.count)
            for (uri, headers) in [("/", [:]), (Self.domainPath, [:]), ("/?token=" + otherToken, [:]),
                ("\(Self.domainPath)/events", ["Cookie": "\(fixture.cookieName)=\(otherToken)"])] as [(String, [String: String])]
            {
                let response = try await fixture.execute(client, uri, cookie: false, headers: headers)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(String(buffer: response.body).contains("401 Unauthorized"), "\(uri)")
            }
            let change = try await fixture.execute(
                client, "\(Self.domainPath)/changes", method: .post, cookie: false, headers: ["X-CSRF-Token": ServerFixture.csrfToken], body: Self.change)
            #expect(change.status == .unauthorized, "a change is refused before anything else is looked at")
        }
        #expect(!fixture.domainFileExists)
    }

    @Test("the token in the address sets the cookie and leads to the same address without it")
    func firstVisit() async throws {
        let fixture = try ServerFixture()
        try await fixture.run { client in
            let response = try await fixture.execute(client, "\(Self.domainPath)?q=a%20b&token=\(ServerFixture.token)", cookie: false)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "\(Self.domainPath)?q=a%20b")
            #expect(response.headers[.setCookie] == "\(fixture.cookieName)=\(ServerFixture.token); Path=/; HttpOnly; SameSite=Strict")
            #expect(try await fixture.execute(client, Self.domainPath).status == .ok, "the cookie it set lets the page through")
        }
    }

    @Test("a Host other than 127.0.0.1 or localhost with the server's port is 421, token or not")
    func foreignHost() async throws {
        let fixture = try ServerFixture()
        let port = ServerFixture.port
        try await fixture.run { client in
            for host in ["evil.example:\(port)", "127.0.0.1", "localhost", "localhost:\(port + 1)", "127.0.0.2:\(port)"] {
                let withCookie = try await fixture.execute(client, Self.domainPath, host: host)
                #expect(withCookie.status == .misdirectedRequest, "\(host)")
                let withToken = try await fixture.execute(client, "/?token=\(ServerFixture.token)", host: host, cookie: false)
                #expect(withToken.status == .misdirectedRequest, "\(host)")
                #expect(withToken.headers[.setCookie] == nil, "\(host)")
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)"] {
                #expect(try await fixture.execute(client, Self.domainPath, host: host).status == .ok, "\(host)")
            }
        }
    }

    @Test("a change without the page's CSRF token, with another, or from another origin is 403 and writes nothing")
    func csrf() async throws {
        let fixture = try ServerFixture()
        let path = "\(Self.domainPath)/changes"
        try await fixture.run { client in
            let refused: [[String: String]] = [
                [:],
                ["X-CSRF-Token": String(repeating: "0", count: ServerFixture.csrfToken.count)],
                ["X-CSRF-Token": ServerFixture.csrfToken, "Origin": "http://evil.example"],
                ["X-CSRF-Token": ServerFixture.csrfToken, "Origin": "http://127.0.0.1:\(ServerFixture.port + 1)"],
            ]
            for headers in refused {
                let response = try await fixture.execute(client, path, method: .post, headers: headers, body: Self.change)
                #expect(response.status == .forbidden, "\(headers)")
            }
            #expect(try await fixture.execute(client, "\(Self.domainPath)/undo", method: .post, body: "{}").status == .forbidden)
            #expect(!fixture.domainFileExists, "a refused change wrote the domain")

            // The same change with the token, from the page's own origin or none, is made.
            let accepted = try await fixture.execute(
                client, path, method: .post, headers: ["X-CSRF-Token": ServerFixture.csrfToken, "Origin": "http://127.0.0.1:\(ServerFixture.port)"],
                body: Self.change)
            #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
            #expect(fixture.domainFileExists)
            let again = try await fixture.execute(client, path, method: .post, headers: ["X-CSRF-Token": ServerFixture.csrfToken], body: Self.change)
            #expect(again.status == .ok)
        }
    }

    @Test("every answer, refused or not, carries the content security policy and the other security headers")
    func securityHeaders() async throws {
        let fixture = try ServerFixture()
        try await fixture.run { client in
            let answers = [
                try await fixture.execute(client, "/"),
                try await fixture.execute(client, Self.domainPath),
                try await fixture.execute(client, "/assets/settings.js"),
                try await fixture.execute(client, "/domains/%3Cscript%3E"),
                try await fixture.execute(client, "/?token=\(ServerFixture.token)", cookie: false),
                try await fixture.execute(client, "/", cookie: false),
                try await fixture.execute(client, "/", host: "evil.example"),
                try await fixture.execute(client, "\(Self.domainPath)/changes", method: .post, body: Self.change),
            ]
            #expect(answers.map(\.status.code) == [200, 200, 200, 404, 303, 401, 421, 403])
            for answer in answers {
                #expect(
                    answer.headers[.contentSecurityPolicy]
                        == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
                    "\(answer.status)")
                #expect(answer.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(answer.status)")
                #expect(answer.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(answer.status)")
                #expect(answer.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(answer.status)")
                #expect(answer.headers[.cacheControl] == "no-store", "\(answer.status)")
            }
        }
    }

    @Test("the script and the style sheet are their resource files, byte for byte, with their types")
    func assets() async throws {
        let fixture = try ServerFixture()
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/SettingsPage/Resources").standardized
        try await fixture.run { client in
            for (name, type) in [("settings.js", "text/javascript; charset=utf-8"), ("settings.css", "text/css; charset=utf-8")] {
                let response = try await fixture.execute(client, "/assets/\(name)")
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == type)
                let file = try Data(contentsOf: resources.appendingPathComponent(name))
                #expect(Data(response.body.readableBytesView) == file, "\(name) is not served as it is")
            }
        }
    }

    @Test("a page that cannot be made is its status with the reason escaped and a way back")
    func errorPage() async throws {
        let fixture = try ServerFixture()
        try await fixture.run { client in
            let response = try await fixture.execute(client, "/domains/%3Cb%3E%22x%22%3C%2Fb%3E")
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let page = String(buffer: response.body)
            #expect(page.contains("<h1>404 Not Found</h1>"))
            #expect(page.contains("&lt;b&gt;&quot;x&quot;&lt;/b&gt;"), "\(page)")
            #expect(!page.contains("<b>"), "\(page)")
            #expect(page.contains(#"<a href="/">All domains</a>"#))
        }
    }
}

/// A site in a private preferences home, served by the real routes behind the guard, as if
/// bound to ``port``.
final class ServerFixture: @unchecked Sendable {
    // Safety: every stored property is a constant set in init; the home's directories are
    // constants too, and the site and address are Sendable.

    /// The port the guard takes the server to listen on.
    static let port = 8765
    /// The start-up token.
    static let token = String(repeating: "7", count: 64)
    /// The pages' CSRF token.
    static let csrfToken = "csrf-0123456789"

    /// The preferences home the site serves, removed with the fixture.
    let home: PrivatePreferencesHome
    /// The site under test.
    let site: SettingsSite
    /// Where the guard takes the server to listen.
    let address = ListeningAddress()

    init() throws {
        home = try PrivatePreferencesHome()
        site = SettingsSite(environment: home.environment, csrfToken: Self.csrfToken)
        address.bind(port: Self.port)
    }

    /// The session cookie's name.
    var cookieName: String { "preferences-settings-\(Self.port)" }

    /// Whether the changes' domain has a file.
    var domainFileExists: Bool {
        FileManager.default.fileExists(atPath: "\(home.userDirectory)/com.example.app.plist")
    }

    /// Runs `test` with a client of the application.
    func run(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = Router()
        router.add(middleware: HostAsAuthority())
        SettingsRoutes.add(to: router, site: site, address: address, token: Self.token)
        var logger = Logger(label: "settings-server-tests")
        logger.logLevel = .critical
        try await Application(router: router, logger: logger).test(.router, test)
    }

    /// Sends a request as the page's browser would: to `host` (by default the server's own
    /// address), with the session cookie unless `cookie` is false, and `headers`.
    func execute(
        _ client: any TestClientProtocol, _ uri: String, method: HTTPRequest.Method = .get, host: String = "127.0.0.1:\(ServerFixture.port)",
        cookie: Bool = true, headers: [String: String] = [:], body: String? = nil
    ) async throws -> TestResponse {
        var fields = HTTPFields()
        fields[HTTPField.Name("Host")!] = host
        if cookie { fields[.cookie] = "\(cookieName)=\(Self.token)" }
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        if body != nil { fields[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
    }
}

/// Makes a request's `Host` header its authority, as the HTTP/1 server does with the header
/// a browser sends; HummingbirdTesting's router framework names every request's authority
/// `localhost`, with no port.
struct HostAsAuthority<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let host = HTTPField.Name("Host")!
        guard let authority = request.headers[host] else { return try await next(request, context) }
        var head = request.head
        head.authority = authority
        head.headerFields[host] = nil
        return try await next(Request(head: head, body: request.body), context)
    }
}
