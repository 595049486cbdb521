import Foundation
import HTTPTypes
package import Hummingbird
import NIOCore
import ServiceLifecycle
package import SettingsPage

/// The settings pages' HTTP routes over a ``SettingsSite``, behind the ``AccessGuard``.
package enum SettingsRoutes {
    /// A router with every route, behind the access guard.
    package static func router(site: SettingsSite, address: ListeningAddress, token: String) -> Router<BasicRequestContext> {
        add(to: Router(), site: site, address: address, token: token)
    }

    /// `router` with the access guard and every route added; middleware added to it before
    /// runs first (a test's, which makes a request look as a browser's would).
    @discardableResult
    package static func add(
        to router: Router<BasicRequestContext>, site: SettingsSite, address: ListeningAddress, token: String
    ) -> Router<BasicRequestContext> {
        router.add(middleware: AccessGuard(address: address, token: token, csrfToken: site.csrfToken))
        router.get("/") { request, _ in
            html(site.listPage(query: request.uri.queryParameters.get("q").map { String($0) }))
        }
        router.get("/assets/settings.js") { _, _ in
            asset(SettingsAssets.script, type: "text/javascript; charset=utf-8")
        }
        router.get("/assets/settings.css") { _, _ in
            asset(SettingsAssets.styleSheet, type: "text/css; charset=utf-8")
        }
        router.get("/domains/:domain") { _, context in
            page { () throws(PageError) in try site.domainPage(domain: try domain(context), pane: nil) }
        }
        router.get("/domains/:domain/panes/:pane") { _, context in
            page { () throws(PageError) in try site.domainPage(domain: try domain(context), pane: try parameter("pane", context)) }
        }
        router.get("/domains/:domain/events") { request, context in
            try events(site: site, request: request, context: context)
        }
        router.post("/domains/:domain/changes") { request, context in
            let body = try await body(of: request)
            return reply { () throws(PageError) in site.applyChanges(domain: try domain(context), pane: pane(request), body: body) }
        }
        router.post("/domains/:domain/undo") { request, context in
            reply { () throws(PageError) in site.undo(domain: try domain(context), pane: pane(request)) }
        }
        router.post("/domains/:domain/restore") { request, context in
            let body = try await body(of: request)
            return reply { () throws(PageError) in site.restore(domain: try domain(context), pane: pane(request), body: body) }
        }
        return router
    }

    /// A path parameter, percent-decoded.
    static func parameter(_ name: String, _ context: BasicRequestContext) throws(PageError) -> String {
        guard let raw = context.parameters.get(name), let decoded = raw.removingPercentEncoding, !decoded.isEmpty else {
            throw PageError(status: 404, "the address names no \(name)")
        }
        return decoded
    }

    /// The domain the address names.
    static func domain(_ context: BasicRequestContext) throws(PageError) -> String {
        try parameter("domain", context)
    }

    /// The pane a change was made on (the rows sent back are that pane's).
    static func pane(_ request: Request) -> String? {
        request.uri.queryParameters.get("pane").map { String($0) }
    }

    /// A request's body, up to the site's limit.
    static func body(of request: Request) async throws -> Data {
        var request = request
        let buffer = try await request.collectBody(upTo: SettingsSite.requestLimit)
        return Data(buffer.readableBytesView)
    }

    /// An HTML answer.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A script or style sheet, its bytes as they are.
    static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A page, or the page of the error that kept it from being made.
    static func page(_ make: () throws(PageError) -> String) -> Response {
        do throws(PageError) {
            return html(try make())
        } catch {
            return errorPage(error, linksBack: true)
        }
    }

    /// The page of an error: its status, its message and, for a page, a link back to the list.
    static func errorPage(_ error: PageError, linksBack: Bool) -> Response {
        let code = status(error.status)
        return html(ErrorPage(code: code.code, reason: code.reasonPhrase, message: error.message, linksBack: linksBack).html, status: code)
    }

    /// The status of a code the site answers with, with its reason phrase (which
    /// `HTTPResponse.Status(code:)` leaves empty).
    static func status(_ code: Int) -> HTTPResponse.Status {
        switch code {
        case 200: .ok
        case 400: .badRequest
        case 404: .notFound
        case 409: .conflict
        case 422: .unprocessableContent
        case 500: .internalServerError
        default: HTTPResponse.Status(code: code)
        }
    }

    /// A JSON answer to a change.
    static func reply(_ make: () throws(PageError) -> ChangeReply) -> Response {
        let answer: ChangeReply
        do throws(PageError) {
            answer = try make()
        } catch {
            answer = SettingsSite.failure(error)
        }
        return Response(
            status: status(answer.status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: answer.json)))
    }

    /// The live feed of a domain page: a Server-Sent Event with the rows of every key that
    /// changes, from any process, as the store's observation reports it; a comment every
    /// 15 seconds finds a page that went away. It ends when the server shuts down.
    static func events(site: SettingsSite, request: Request, context: BasicRequestContext) throws -> Response {
        let domain: String
        let subscription: LiveSubscription
        do throws(PageError) {
            domain = try Self.domain(context)
            subscription = try site.subscribe(domain: domain)
        } catch {
            return errorPage(error, linksBack: false)
        }
        let pane = pane(request) ?? "Root"
        let body = ResponseBody { writer in
            defer { subscription.end() }
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(15))
                            subscription.ping()
                        }
                    }
                    // Tells the page how soon to reconnect, and that the feed is open.
                    try await writer.write(ByteBuffer(string: "retry: 1000\n: open\n\n"))
                    for await _ in subscription.wakeUps {
                        let keys = subscription.take()
                        let event = keys.isEmpty ? ": ping\n\n" : site.changeEvent(keys: keys, domain: domain, pane: pane)
                        try await writer.write(ByteBuffer(string: event))
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                subscription.end()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}
