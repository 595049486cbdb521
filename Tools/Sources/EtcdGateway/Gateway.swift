import Foundation

/// The JSON of etcd's v3 gateway (grpc-gateway over `rpc.proto`), as etcd 3.4 writes it:
/// field names in snake_case, bytes in base64, 64-bit integers as strings, and every field
/// that holds its zero value left out (no `"type"` for a put event, no `"revision"` in a
/// header at revision 0), so each one decodes as optional.
enum Gateway {
    // MARK: Requests

    /// `/v3/kv/range`: the keys from `key` up to `range_end` (exclusive), or `key` alone.
    /// `serializable` stays false (left out), so the read is linearizable: served through
    /// the leader, never stale.
    struct RangeRequest: Encodable {
        var key: String
        var rangeEnd: String?
        enum CodingKeys: String, CodingKey {
            case key
            case rangeEnd = "range_end"
        }
    }

    /// `/v3/kv/put`; `lease` (an id, as a string) ties the key to a lease: it goes when the
    /// lease does.
    struct PutRequest: Encodable {
        var key: String
        var value: String
        var lease: String?
    }

    /// `/v3/lease/grant`: a lease of `TTL` seconds (etcd may raise it to its minimum).
    struct LeaseGrantRequest: Encodable {
        var ttl: String
        enum CodingKeys: String, CodingKey { case ttl = "TTL" }
    }

    /// `/v3/lease/keepalive` and `/v3/lease/revoke`: one lease, by id.
    struct LeaseRequest: Encodable {
        var id: String
        enum CodingKeys: String, CodingKey { case id = "ID" }
    }

    /// `/v3/kv/txn`: if every comparison holds, the success operations, else the failure
    /// ones, all at one revision.
    struct TransactionRequest: Encodable {
        struct Compare: Encodable {
            var key: String
            var target: String
            var result: String
            var modRevision: String?
            var createRevision: String?
            enum CodingKeys: String, CodingKey {
                case key, target, result
                case modRevision = "mod_revision"
                case createRevision = "create_revision"
            }
        }
        struct Operation: Encodable {
            var requestPut: PutRequest?
            var requestDeleteRange: DeleteRangeRequest?
            enum CodingKeys: String, CodingKey {
                case requestPut = "request_put"
                case requestDeleteRange = "request_delete_range"
            }
        }
        var compare: [Compare]
        var success: [Operation]
        var failure: [Operation]
    }

    /// `/v3/kv/deleterange`, for one key.
    struct DeleteRangeRequest: Encodable {
        var key: String
    }

    /// `/v3/kv/compaction`; `physical` waits until the old revisions are really gone, so
    /// a watch from before them fails at once afterwards.
    struct CompactionRequest: Encodable {
        var revision: String
        var physical: Bool
    }

    /// `/v3/auth/authenticate`.
    struct AuthenticateRequest: Encodable {
        var name: String
        var password: String
    }

    /// `/v3/watch`: the body of the one request a gateway watch stream takes.
    struct WatchRequest: Encodable {
        struct Create: Encodable {
            var key: String
            var rangeEnd: String
            var startRevision: String
            enum CodingKeys: String, CodingKey {
                case key
                case rangeEnd = "range_end"
                case startRevision = "start_revision"
            }
        }
        var createRequest: Create
        enum CodingKeys: String, CodingKey {
            case createRequest = "create_request"
        }
    }

    // MARK: Responses

    /// The header every response carries; only the revision matters here.
    struct Header: Decodable {
        var revision: Int64
        enum CodingKeys: String, CodingKey { case revision }
        init(from decoder: any Decoder) throws {
            revision = try decoder.container(keyedBy: CodingKeys.self).int64(.revision)
        }
    }

    /// `mvccpb.KeyValue`.
    struct KeyValue: Decodable {
        var key: String
        var value: String
        var createRevision: Int64
        var modRevision: Int64
        var version: Int64
        enum CodingKeys: String, CodingKey {
            case key, value, version
            case createRevision = "create_revision"
            case modRevision = "mod_revision"
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            key = try container.decodeIfPresent(String.self, forKey: .key) ?? ""
            value = try container.decodeIfPresent(String.self, forKey: .value) ?? ""
            createRevision = try container.int64(.createRevision)
            modRevision = try container.int64(.modRevision)
            version = try container.int64(.version)
        }

        /// The public form, with the base64 decoded.
        func decoded() throws -> EtcdKeyValue {
            EtcdKeyValue(
                key: try Gateway.bytes(key), value: try Gateway.bytes(value), createRevision: createRevision,
                modRevision: modRevision, version: version)
        }
    }

    /// The answer to a range.
    struct RangeResponse: Decodable {
        var header: Header?
        var kvs: [KeyValue]?
    }

    /// The answer to a put, a delete or a compaction: only its header is used.
    struct HeaderResponse: Decodable {
        var header: Header?
    }

    /// The answer to a lease grant, or (inside `result`) to a keep-alive: the lease's id and
    /// the seconds it has left; a keep-alive of a lease that is gone has no `TTL` (0).
    struct LeaseResponse: Decodable {
        var id: Int64
        var ttl: Int64
        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case ttl = "TTL"
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.int64(.id)
            ttl = try container.int64(.ttl)
        }
    }

    /// A keep-alive's answer: the gateway wraps a stream's message in `result`.
    struct KeepAliveResponse: Decodable {
        var result: LeaseResponse?
    }

    /// The answer to a transaction; `succeeded` is left out when false.
    struct TransactionResponse: Decodable {
        var header: Header?
        var succeeded: Bool?
    }

    /// The answer to an authenticate.
    struct AuthenticateResponse: Decodable {
        var token: String?
    }

    /// One line of a watch stream: `{"result":{...}}`, or `{"error":{...}}` when the stream
    /// itself failed.
    struct WatchEnvelope: Decodable {
        var result: WatchResponse?
        var error: StreamError?
    }

    /// `WatchResponse`.
    struct WatchResponse: Decodable {
        var header: Header?
        var created: Bool
        var canceled: Bool
        var compactRevision: Int64
        var cancelReason: String
        var events: [Event]
        enum CodingKeys: String, CodingKey {
            case header, created, canceled, events
            case compactRevision = "compact_revision"
            case cancelReason = "cancel_reason"
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            header = try container.decodeIfPresent(Header.self, forKey: .header)
            created = try container.decodeIfPresent(Bool.self, forKey: .created) ?? false
            canceled = try container.decodeIfPresent(Bool.self, forKey: .canceled) ?? false
            compactRevision = try container.int64(.compactRevision)
            cancelReason = try container.decodeIfPresent(String.self, forKey: .cancelReason) ?? ""
            events = try container.decodeIfPresent([Event].self, forKey: .events) ?? []
        }
    }

    /// `mvccpb.Event`: `type` is left out for a put (the enum's zero) and `"DELETE"` for a delete.
    struct Event: Decodable {
        var type: String?
        var kv: KeyValue?
    }

    /// A stream error of grpc-gateway: `{"grpc_code":..,"http_code":..,"message":..}`.
    struct StreamError: Decodable {
        var grpcCode: Int?
        var httpCode: Int?
        var message: String?
        enum CodingKeys: String, CodingKey {
            case message
            case grpcCode = "grpc_code"
            case httpCode = "http_code"
        }
    }

    /// The body of a failed unary request. etcd 3.4 sends `{"error":"...","message":"...",
    /// "code":N}` (`error` a string); later gateways drop `error`. Both have `message` and
    /// `code` (the gRPC status code), which are all that is read.
    struct ErrorBody: Decodable {
        var message: String?
        var code: Int?
    }

    // MARK: Conversions

    /// Bytes as the gateway writes them: standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// The bytes of a base64 field; throws ``EtcdError/malformed(_:)`` for anything else.
    static func bytes(_ base64: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: base64) else {
            throw EtcdError.malformed("a byte field is not base64: \(base64.prefix(40))")
        }
        return [UInt8](data)
    }

    /// The first key after every key starting with `prefix`: etcd's convention for a prefix
    /// range, the prefix with its last byte below 0xFF incremented (and what follows it
    /// dropped). A prefix of 0xFF bytes only, or none, has no such key: `[0]` then means
    /// "to the end of the key space".
    static func rangeEnd(ofPrefix prefix: [UInt8]) -> [UInt8] {
        guard let last = prefix.lastIndex(where: { $0 < 0xFF }) else { return [0] }
        return Array(prefix[..<last]) + [prefix[last] + 1]
    }
}

extension KeyedDecodingContainer {
    /// An int64 field: the gateway writes it as a JSON string, but a number is taken too;
    /// a missing field is 0, the value proto3 leaves out.
    func int64(_ key: Key) throws -> Int64 {
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            guard let value = Int64(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an int64: \(text)")
            }
            return value
        }
        return try decodeIfPresent(Int64.self, forKey: key) ?? 0
    }
}
