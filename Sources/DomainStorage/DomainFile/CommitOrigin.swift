import Foundation
import SystemPackage

/// Where the values of one version of a domain file came from, when the program that wrote it
/// says: a fleet-policy service names the etcd key and revision behind each managed key, so
/// that `defaults explain` can name them (``PreferenceSource/origin``).
///
/// Stored like the writer's commit record, in an extended attribute of the file itself
/// (`user.swift-preferences.origin`), set on the temporary file before it is synced and renamed into place:
/// it is durable with the data and can never describe another version's values. The text is
/// JSON, `{"v":1,"mtime":<ns>,"summary":"…","keys":{"Key":"…"}}`, and names the modification
/// time the writer stamped, so a file rewritten in place by hand (which moves the time and
/// keeps the attribute) is not credited to the writer.
public struct CommitOrigin: Sendable, Hashable {
    /// The extended attribute holding the origin.
    package static let attributeName = "user.swift-preferences.origin"
    /// The most bytes stored: ext4 keeps all of a file's attributes in one block, so a
    /// larger origin drops its per-key part and keeps the summary.
    package static let maximumSize = 3072

    /// Where the version as a whole came from ("fleet policy at etcd revision 42").
    public var summary: String
    /// Where each key's value came from, by key; keys not listed come from ``summary``.
    public var keys: [String: String]

    /// Creates an origin.
    public init(summary: String, keys: [String: String] = [:]) {
        self.summary = summary
        self.keys = keys
    }

    /// Where `key`'s value came from.
    public func origin(ofKey key: String) -> String {
        keys[key] ?? summary
    }

    /// The attribute's bytes for a version stamped with `modificationTime`: the per-key part
    /// is dropped if it would not fit, and nil if even the summary does not.
    package func encoded(modificationTime: Int64) -> [UInt8]? {
        for keys in [keys, [:]] {
            let object: [String: Any] = ["v": 1, "mtime": modificationTime, "summary": summary, "keys": keys]
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
            if data.count <= Self.maximumSize { return Array(data) }
        }
        return nil
    }

    /// Reads an origin from the attribute's bytes, if they describe the version stamped with
    /// `modificationTime`.
    package init?(decoding bytes: [UInt8], modificationTime: Int64) {
        guard bytes.count <= Self.maximumSize,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            object["v"] as? Int == 1, (object["mtime"] as? NSNumber)?.int64Value == modificationTime,
            let summary = object["summary"] as? String
        else { return nil }
        self.init(summary: summary, keys: object["keys"] as? [String: String] ?? [:])
    }

    /// The origin recorded with the file at `path`, if it names the file's modification time
    /// (a file rewritten in place since keeps the attribute but not the time).
    package static func recorded(atPath path: String) -> CommitOrigin? {
        guard let status = try? FilePath(path).stat(followTargetSymlink: false),
            let bytes = try? SystemCalls.extendedAttribute(attributeName, atPath: FilePath(path), limit: maximumSize)
        else { return nil }
        return CommitOrigin(decoding: bytes, modificationTime: FileIdentity(status).modificationTime)
    }
}
