import Foundation
import HTTPTypes
package import Hummingbird
import SettingsPage

/// Lets a request through only from this user's browser, to this server, for this run.
///
/// In order: a `Host` other than 127.0.0.1 or localhost with our port gets 421 (DNS
/// rebinding); a request without the start-up token, in the `token` query parameter or the
/// cookie the first visit sets, gets 401; a change (any method but GET and HEAD) without the
/// page's CSRF token in `X-CSRF-Token`, or from another origin, gets 403. A first visit
/// with the token is redirected to the same address without it, so it stays out of the
/// browser's history and any referrer. Every answer carries a policy that allows only our
/// own script and style and no framing.
package struct AccessGuard<Context: RequestContext>: RouterMiddleware {
    /// The address the server is bound to, whose host and origin requests must name.
    let address: ListeningAddress
    /// The token printed at start, which a first visit brings in its address.
    let token: String
    /// The token a change must carry in `X-CSRF-Token`; the pages hold it.
    let csrfToken: String

    /// A guard of the server at `address`, with its start-up token and its pages' CSRF token.
    package init(address: ListeningAddress, token: String, csrfToken: String) {
        self.address = address
        self.token = token
        self.csrfToken = csrfToken
    }

    /// The cookie's name, with the port: cookies are shared by every port of a host.
    var cookieName: String { "preferences-settings-\(address.port)" }

    /// Answers a refused request itself, and passes any other on with the security headers
    /// added to its answer.
    @concurrent package func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard address.admits(host: request.head.authority) else {
            return Self.refusal(.misdirectedRequest, "This server answers only to 127.0.0.1 and localhost on its own port.")
        }
        if let offered = request.uri.queryParameters.get("token") {
            guard Self.same(offered, token) else { return Self.refusal(.unauthorized, "The token in this address is not this server's.") }
            // Set the cookie and go to the same page without the token in its address.
            var query = request.uri.queryParameters.filter { $0.key != "token" }.map { "\($0.key)=\(Self.queryEscaped(String($0.value)))" }.joined(separator: "&")
            if !query.isEmpty { query = "?" + query }
            var headers = HTTPFields()
            headers[.location] = request.uri.path + query
            headers[.setCookie] = "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            return Self.secured(Response(status: .seeOther, headers: headers))
        }
        guard let cookie = request.cookies[cookieName]?.value, Self.same(cookie, token) else {
            return Self.refusal(.unauthorized, "Open the address preferences-settings printed when it started (it holds the token).")
        }
        if request.method != .get && request.method != .head {
            guard let offered = request.headers[HTTPField.Name("X-CSRF-Token")!], Self.same(offered, csrfToken) else {
                return Self.refusal(.forbidden, "A change must carry the page's CSRF token.")
            }
            if let origin = request.headers[.origin], !address.admits(origin: origin) {
                return Self.refusal(.forbidden, "A change must come from this server's own pages.")
            }
        }
        return Self.secured(try await next(request, context))
    }

    /// Compares two tokens in time that does not depend on where they differ.
    static func same(_ offered: some StringProtocol, _ expected: String) -> Bool {
        let left = Array(offered.utf8), right = Array(expected.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// A query value percent-encoded again.
    static func queryEscaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// A short page saying why a request was refused.
    static func refusal(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        secured(SettingsRoutes.html(ErrorPage(code: status.code, reason: status.reasonPhrase, message: reason, linksBack: false).html, status: status))
    }

    /// `response` with the headers every answer carries.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
