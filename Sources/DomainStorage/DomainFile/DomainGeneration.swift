public import Foundation
public import PropertyList

/// One version of a domain's file: the current file or a generation kept in its history,
/// with who wrote it, when, and what it changed.
///
/// ``PreferenceFiles/generations(at:)`` lists them newest first, the current file first.
public struct DomainGeneration: Sendable, Hashable {
    /// Who wrote a version, as far as its commit record tells.
    public enum Writer: Sendable, Hashable, CustomStringConvertible {
        /// A program using this library: its process ID and systemd unit (nil outside one).
        case process(id: Int32, unit: String?)
        /// The file carries a commit record, but was rewritten in place since (an editor,
        /// `cat >`): its modification time is no longer the one the record names.
        case editedOutsideLibrary
        /// The file carries no commit record: written by another program, or on a file system
        /// without user extended attributes.
        case unknown

        /// `pid 123 (unit foo.service)`, `unknown (edited outside the library)` or `unknown`.
        public var description: String {
            switch self {
            case .process(let id, let unit): "pid \(id)" + (unit.map { " (\($0))" } ?? "")
            case .editedOutsideLibrary: "unknown (edited outside the library)"
            case .unknown: "unknown"
            }
        }
    }

    /// The version's number: the generation number, or for the current file the sequence it
    /// was written with (one more than the newest generation when that is not recorded).
    public let number: Int
    /// Whether this is the domain's current file rather than a kept generation.
    public let isCurrent: Bool
    /// The file.
    public let path: String
    /// When it was written: the time its writer recorded, else its modification time; nil if
    /// the file could not be examined.
    public let date: Date?
    /// Who wrote it.
    public let writer: Writer
    /// Its values; nil if it cannot be used (see ``problem``).
    public let values: [String: PropertyListValue]?
    /// Why its values cannot be used, if they cannot: corrupt, unsafe, unreadable.
    public let problem: PreferencesError?
    /// The keys whose values differ from the next older version listed, sorted (for the
    /// domain's first version, number 1, every key it holds); nil for the oldest listed
    /// otherwise, or when either version cannot be read.
    public let changedKeys: [String]?
    /// Where the version's values came from, when its writer said (an import from
    /// corelibs-Foundation's file, a fleet policy's revision); nil for an ordinary commit.
    public let origin: CommitOrigin?

    /// Creates the description of a version.
    public init(
        number: Int, isCurrent: Bool, path: String, date: Date?, writer: Writer, values: [String: PropertyListValue]?,
        problem: PreferencesError?, changedKeys: [String]?, origin: CommitOrigin? = nil
    ) {
        self.number = number
        self.isCurrent = isCurrent
        self.path = path
        self.date = date
        self.writer = writer
        self.values = values
        self.problem = problem
        self.changedKeys = changedKeys
        self.origin = origin
    }
}
