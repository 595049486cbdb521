import AsyncHTTPClient
import Foundation
package import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// A client of etcd's v3 API through the JSON gateway every etcd member serves on its client
/// port (`/v3/kv/range`, `/v3/watch`, ...), over HTTP/1.1 with AsyncHTTPClient.
///
/// The gateway rather than gRPC: it needs no generated code or HTTP/2 stack, and the few
/// calls a preferences service makes (read a prefix, watch it, and in tests put and delete)
/// are plain JSON.
///
/// **Endpoints.** Each request, and each new watch, tries the configured endpoints in turn,
/// starting with the last one that answered. A connection failure, a timeout or a member
/// without a leader (gRPC `Unavailable`) moves on to the next; only when every endpoint
/// failed does the request throw ``EtcdError/unavailable(_:)``. A put retried on another
/// member after a timeout may have been applied twice (two revisions, same value).
///
/// **Authentication.** With ``EtcdConfiguration/credentials`` the client fetches a token
/// before its first request and sends it as the `Authorization` header; when etcd answers
/// that the token is invalid (it expired, or etcd forgot it) the client authenticates again
/// once and repeats the request.
///
/// Call ``shutdown()`` before the last reference goes: the HTTP client's connections are
/// closed there (AsyncHTTPClient traps on a client that was never shut down).
package final class EtcdClient: Sendable {
    let configuration: EtcdConfiguration
    let logger: Logger
    private let httpClient: HTTPClient
    /// The endpoint to try first and the current token, shared by concurrent requests.
    private let state = Mutex(State())

    private struct State {
        /// The index of the endpoint that answered last.
        var preferred = 0
        /// The token from the last authentication; nil before it (or without credentials),
        /// "" when etcd said authentication is off.
        var token: String?
    }

    /// The most a unary answer may hold: a range over a large prefix is the biggest.
    private static let maximumResponseBytes = 256 * 1024 * 1024

    /// Creates a client. It connects lazily, on the first request.
    ///
    /// - Parameters:
    ///   - configuration: The endpoints, TLS files, credentials and timeout.
    ///   - logger: Where endpoint failures and re-authentication are logged (at debug and notice).
    /// - Throws: ``EtcdError/malformed(_:)`` for no endpoints or one that is not an `http` or
    ///   `https` URL, and NIOSSL's error when a TLS file cannot be read or parsed: files are
    ///   read here, so a bad path fails at startup, not on the first request.
    package init(configuration: EtcdConfiguration, logger: Logger) throws {
        guard !configuration.endpoints.isEmpty else { throw EtcdError.malformed("no etcd endpoints configured") }
        var configuration = configuration
        configuration.endpoints = try configuration.endpoints.map { endpoint in
            guard let url = URL(string: endpoint), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw EtcdError.malformed("not an http or https URL: \(endpoint)")
            }
            // Paths are appended to it ("/v3/kv/range").
            return endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        }
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        if let tls = configuration.tls {
            if let caFile = tls.caFile {
                tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            }
            if let certificateFile = tls.certificateFile {
                tlsConfiguration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
            }
            if let keyFile = tls.keyFile {
                tlsConfiguration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            }
        }
        var httpConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tlsConfiguration,
            // No read timeout: a watch is idle for as long as nothing changes.
            timeout: .init(connect: Self.timeAmount(configuration.requestTimeout)))
        // HTTP/1.1 even where TLS could negotiate HTTP/2: etcd routes HTTP/2 requests by
        // content type between gRPC and the gateway, and one connection per watch keeps a
        // dropped stream from taking unary requests with it.
        httpConfiguration.httpVersion = .http1Only
        // A refused connection fails the request at once: the next endpoint is the retry.
        // (AsyncHTTPClient would otherwise keep reconnecting to a dead member, with backoff,
        // until the request timeout, and every failover would cost that long.)
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)
        self.configuration = configuration
        self.logger = logger
    }

    /// Closes the connections; the client serves no request afterwards. Watches still open
    /// end with an error.
    package func shutdown() async throws {
        try await httpClient.shutdown()
    }

    // MARK: Key-value

    /// Reads every key starting with `prefix`, linearizably (through the leader, so it is
    /// never older than a write that finished before the call).
    ///
    /// - Returns: The keys in key order, and the revision they were read at.
    package func range(prefix: [UInt8]) async throws -> EtcdRange {
        try await range(from: prefix, to: Gateway.rangeEnd(ofPrefix: prefix))
    }

    /// Reads every key from `key` up to `rangeEnd` (exclusive), linearizably.
    ///
    /// - Returns: The keys in key order, and the revision they were read at.
    package func range(from key: [UInt8], to rangeEnd: [UInt8]) async throws -> EtcdRange {
        // etcd takes no empty key; "\0" to "\0" is its way of saying every key.
        let request = Gateway.RangeRequest(key: Gateway.base64(key.isEmpty ? [0] : key), rangeEnd: Gateway.base64(rangeEnd))
        let response = try await unary("/v3/kv/range", request, as: Gateway.RangeResponse.self)
        return EtcdRange(
            revision: response.header?.revision ?? 0, keyValues: try (response.kvs ?? []).map { try $0.decoded() })
    }

    /// Reads one key, linearizably; nil when it does not exist.
    package func get(key: [UInt8]) async throws -> EtcdKeyValue? {
        let request = Gateway.RangeRequest(key: Gateway.base64(key), rangeEnd: nil)
        let response = try await unary("/v3/kv/range", request, as: Gateway.RangeResponse.self)
        return try response.kvs?.first?.decoded()
    }

    /// Sets `key` to `value`.
    ///
    /// - Returns: The revision of the put.
    /// - Parameter lease: A lease the key goes with (``grantLease(seconds:)``); nil for none.
    /// - Throws: ``EtcdError/server(status:message:)`` with etcd's "requested lease not
    ///   found" when the lease expired or was revoked.
    @discardableResult
    package func put(key: [UInt8], value: [UInt8], lease: EtcdLease? = nil) async throws -> Int64 {
        let request = Gateway.PutRequest(key: Gateway.base64(key), value: Gateway.base64(value), lease: lease.map { String($0.id) })
        return try await unary("/v3/kv/put", request, as: Gateway.HeaderResponse.self).header?.revision ?? 0
    }

    /// Deletes `key`.
    ///
    /// - Returns: The revision after the call: the delete's own when the key existed, the
    ///   unchanged current one when it did not.
    @discardableResult
    package func delete(key: [UInt8]) async throws -> Int64 {
        let request = Gateway.DeleteRangeRequest(key: Gateway.base64(key))
        return try await unary("/v3/kv/deleterange", request, as: Gateway.HeaderResponse.self).header?.revision ?? 0
    }

    /// Discards the history before `revision`, waiting until it is physically gone: a watch
    /// from an earlier revision then fails with ``EtcdError/compacted(compactRevision:)``.
    package func compact(revision: Int64) async throws {
        let request = Gateway.CompactionRequest(revision: String(revision), physical: true)
        _ = try await unary("/v3/kv/compaction", request, as: Gateway.HeaderResponse.self)
    }

    // MARK: Requests

    /// Sends a unary request to the endpoints in turn and decodes the first answer.
    func unary<Request: Encodable, Response: Decodable>(
        _ path: String, _ request: Request, as type: Response.Type
    ) async throws -> Response {
        let body = try JSONEncoder().encode(request)
        let data = try await withEndpoints { endpoint in
            try await self.authorizedUnary(path, body: body, at: endpoint)
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw EtcdError.malformed("\(path): \(error); body \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
    }

    /// Runs `operation` on each endpoint in turn, from the one that answered last, until one
    /// does not throw ``EndpointFailure``; remembers that one.
    func withEndpoints<Result>(_ operation: (String) async throws -> Result) async throws -> Result {
        let endpoints = configuration.endpoints
        let first = state.withLock { $0.preferred }
        var failures: [String] = []
        for offset in endpoints.indices {
            let index = (first + offset) % endpoints.count
            do {
                let result = try await operation(endpoints[index])
                state.withLock { $0.preferred = index }
                return result
            } catch let failure as EndpointFailure {
                try Task.checkCancellation()
                logger.debug(
                    "etcd endpoint failed, trying the next",
                    metadata: ["endpoint": "\(endpoints[index])", "error": "\(failure.reason)"])
                failures.append("\(endpoints[index]): \(failure.reason)")
            }
        }
        throw EtcdError.unavailable(failures.joined(separator: "; "))
    }

    /// One unary request at `endpoint` with the current token, authenticating again once
    /// when etcd refuses the token.
    private func authorizedUnary(_ path: String, body: Data, at endpoint: String) async throws -> Data {
        var token = try await token(at: endpoint, renew: false)
        var renewed = false
        while true {
            let (status, data) = try await post(path, body: body, at: endpoint, token: token)
            if status == 200 { return data }
            let failure = GatewayFailure(status: status, body: data)
            if failure.isUnavailable { throw EndpointFailure(reason: failure.message) }
            if failure.isTokenRefused && configuration.credentials != nil && !renewed {
                logger.notice("etcd refused the authentication token; authenticating again", metadata: ["error": "\(failure.message)"])
                renewed = true
                token = try await self.token(at: endpoint, renew: true)
                continue
            }
            throw failure.error
        }
    }

    /// The token to send, authenticating at `endpoint` first when there is none yet or
    /// `renew` is set; nil without credentials or when etcd has authentication off.
    func token(at endpoint: String, renew: Bool) async throws -> String? {
        guard let credentials = configuration.credentials else { return nil }
        if !renew, let token = state.withLock({ $0.token }) { return token.isEmpty ? nil : token }
        let body = try JSONEncoder().encode(Gateway.AuthenticateRequest(name: credentials.user, password: credentials.password))
        let (status, data) = try await post("/v3/auth/authenticate", body: body, at: endpoint, token: nil)
        let token: String
        if status == 200 {
            guard let answer = try? JSONDecoder().decode(Gateway.AuthenticateResponse.self, from: data), let value = answer.token
            else { throw EtcdError.malformed("/v3/auth/authenticate: no token in \(String(decoding: data.prefix(200), as: UTF8.self))") }
            token = value
        } else {
            let failure = GatewayFailure(status: status, body: data)
            if failure.isUnavailable { throw EndpointFailure(reason: failure.message) }
            // Credentials for an etcd without authentication: requests go without a token,
            // and if authentication is turned on later, their refusal brings us back here.
            guard failure.isAuthenticationDisabled else { throw EtcdError.authentication(failure.message) }
            token = ""
        }
        state.withLock { $0.token = token }
        return token.isEmpty ? nil : token
    }

    /// Sends one request to one endpoint; throws ``EndpointFailure`` when it cannot be
    /// reached or does not answer within the request timeout.
    private func post(_ path: String, body: Data, at endpoint: String, token: String?) async throws -> (status: Int, body: Data) {
        let request = Self.request(path, body: body, at: endpoint, token: token)
        do {
            let response = try await httpClient.execute(request, timeout: Self.timeAmount(configuration.requestTimeout), logger: logger)
            let buffer = try await response.body.collect(upTo: Self.maximumResponseBytes)
            return (Int(response.status.code), Data(buffer.readableBytesView))
        } catch {
            try Task.checkCancellation()
            throw EndpointFailure(reason: "\(error)")
        }
    }

    /// A POST of JSON `body` to `path` at `endpoint`, with the token when there is one.
    static func request(_ path: String, body: Data, at endpoint: String, token: String?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: token) }
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }

    /// Executes a request with no deadline: the watch stream lives until cancelled or dropped.
    func stream(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try await httpClient.execute(request, deadline: .distantFuture, logger: logger)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
