package import Foundation

/// What one host applied to one domain, as its follower reports it at
/// `<prefix>status/HOST/DOMAIN` (``FleetLayout/statusKey(host:domain:)``), in JSON, on an etcd
/// lease the follower keeps alive: a host that stops (killed, powered off, cut off) loses its
/// statuses when the lease expires, so its silence never reads as success.
///
/// ```json
/// {"host":"web-1","domain":"com.example.app","groups":["lab"],"revision":412,
///  "digest":"sha256:9f2c…","valid":false,
///  "reasons":[{"key":"Volume","reason":"the value 120 is above the maximum 100 of Volume"}],
///  "time":"2026-11-28T17:02:11.042Z"}
/// ```
package struct FleetStatus: Codable, Sendable, Hashable {
    /// One value the host did not apply, and why.
    package struct Reason: Codable, Sendable, Hashable {
        /// The preference key refused, or the etcd key whose whole value was refused (not a
        /// property-list dictionary, over the size limit), or `""` for the domain's file.
        package var key: String
        /// Why, in the words `defaults` uses for the same refusal.
        package var reason: String

        /// Creates a reason.
        package init(key: String, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// The host's name (as in `hosts/HOST/`).
    package var host: String
    /// The domain.
    package var domain: String
    /// The etcd revision of the last change to this domain's policy the host applied (for a
    /// whole read, the read's revision): it has applied everything up to it.
    package var revision: Int64
    /// `sha256:` and the hex SHA-256 of the managed file the host wrote, or nil when the
    /// policy leaves the domain no managed file.
    package var digest: String?
    /// True when every value of the policy was applied; false with ``reasons`` otherwise.
    package var valid: Bool
    /// What was not applied, and why; empty when ``valid``.
    package var reasons: [Reason]
    /// When the host applied it (RFC 3339, UTC, milliseconds).
    package var time: String
    /// The host groups it follows, weakest first, so the fleet knows which keys concern it
    /// even without its enrolment; nil from a writer that does not say.
    package var groups: [String]?

    /// Creates a status.
    package init(host: String, domain: String, revision: Int64, digest: String?, reasons: [Reason], time: Date, groups: [String]? = nil) {
        self.host = host
        self.groups = groups
        self.domain = domain
        self.revision = revision
        self.digest = digest
        self.valid = reasons.isEmpty
        self.reasons = reasons
        self.time = FleetTime.string(time)
    }

    /// ``time`` as a date, nil if it is not RFC 3339.
    package var date: Date? { FleetTime.date(time) }

    /// `sha256:` and the hex SHA-256 of `bytes`: how ``digest`` names a managed file.
    package static func digest(of bytes: some Sequence<UInt8>) -> String {
        "sha256:" + SHA256.hash(Array(bytes)).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}

/// That a host follows the fleet, at `<prefix>status/HOST` (``FleetLayout/enrolmentKey(host:)``),
/// without a lease: it stays when the host goes silent, so the fleet knows whom it is missing.
/// A host that is retired for good is forgotten by deleting the key.
package struct FleetEnrolment: Codable, Sendable, Hashable {
    /// The host's name.
    package var host: String
    /// The host groups it follows, weakest first.
    package var groups: [String]
    /// When its follower last started (RFC 3339).
    package var started: String

    /// Creates an enrolment.
    package init(host: String, groups: [String], started: Date) {
        self.host = host
        self.groups = groups
        self.started = FleetTime.string(started)
    }
}

/// The fleet loop's JSON: keys sorted, so one state is one byte string.
package enum FleetJSON {
    /// Encodes `value` with sorted keys and no escaped slashes.
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Decodes `bytes`.
    package static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

/// Times in the fleet loop's JSON: RFC 3339 in UTC with milliseconds.
package enum FleetTime {
    /// `date` as `2026-11-28T17:02:11.042Z`.
    package static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The date of an RFC 3339 string, with or without fractional seconds; nil otherwise.
    package static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
