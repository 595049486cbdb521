/// Why an ``EtcdClient`` request failed.
package enum EtcdError: Error, CustomStringConvertible {
    /// The revision a watch was to start from is gone: etcd compacted the history up to
    /// `compactRevision`. Read the keys again (a range) and watch from its revision + 1.
    case compacted(compactRevision: Int64)
    /// No endpoint answered, or a watch stream dropped; the text names each endpoint's failure.
    case unavailable(String)
    /// etcd refused the request: the HTTP status and etcd's message.
    case server(status: Int, message: String)
    /// The credentials were refused, or a renewed token was refused again.
    case authentication(String)
    /// etcd's answer could not be understood.
    case malformed(String)

    /// A sentence saying what failed.
    package var description: String {
        switch self {
        case .compacted(let revision): "etcd compacted its history up to revision \(revision)"
        case .unavailable(let failures): "etcd is unavailable: \(failures)"
        case .server(let status, let message): "etcd refused the request (HTTP \(status)): \(message)"
        case .authentication(let message): "etcd authentication failed: \(message)"
        case .malformed(let message): "etcd's answer was not understood: \(message)"
        }
    }
}
