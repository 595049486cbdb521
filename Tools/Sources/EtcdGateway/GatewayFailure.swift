import Foundation

/// An error answer of the gateway, sorted by what the client does about it: try another
/// endpoint, authenticate again, or give up with an ``EtcdError``.
struct GatewayFailure {
    /// The HTTP status (200 for a watch cancelled in its stream).
    var status: Int
    /// The gRPC status code, when etcd sent one.
    var code: Int?
    /// etcd's message, such as `etcdserver: no leader`.
    var message: String

    /// Reads the error body of a unary request; a body that is not etcd's JSON becomes the message.
    init(status: Int, body: Data) {
        self.status = status
        if let decoded = try? JSONDecoder().decode(Gateway.ErrorBody.self, from: body), let message = decoded.message {
            code = decoded.code
            self.message = message
        } else {
            code = nil
            message = String(decoding: body.prefix(500), as: UTF8.self)
        }
    }

    /// A failure with the given parts (a watch's cancel reason, a stream error).
    init(status: Int, code: Int?, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// gRPC `Unavailable` (14; HTTP 503): this member cannot serve now (no leader, leader
    /// changed, request timed out inside etcd), another may.
    var isUnavailable: Bool { code == 14 || status == 503 }

    /// etcd refused the token: it expired or was forgotten (code 16, `Unauthenticated`), none
    /// was sent though authentication is on ("user name is empty"), or the authentication
    /// store changed since it was issued. A new token may be accepted.
    var isTokenRefused: Bool {
        code == 16 || message.contains("invalid auth token") || message.contains("user name is empty")
            || message.contains("revision of auth store is old")
    }

    /// etcd has authentication off, so an authenticate request is refused (code 9,
    /// `FailedPrecondition`).
    var isAuthenticationDisabled: Bool { message.contains("authentication is not enabled") }

    /// The error to throw when nothing else helps.
    var error: EtcdError {
        if isTokenRefused { return .authentication(message) }
        return .server(status: status, message: message)
    }
}
