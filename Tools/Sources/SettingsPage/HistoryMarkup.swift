import DefaultsCommand
import Foundation
import Preferences

/// A domain's history as `history.mustache` draws it: its versions newest first, whether the
/// last change can be undone, and why the history could not be read, if it could not.
struct HistoryMarkup {
    /// Why the versions could not be listed.
    var problem: String?
    /// True when there is a version before the current one.
    var canUndo: Bool
    /// The versions, newest first.
    var generations: [Generation]
    /// True when there is any version: the list is drawn only then.
    var hasGenerations: Bool

    /// One version: its number, when and by whom it was written, what it changed.
    struct Generation {
        var number: Int
        var isCurrent: Bool
        var time: Time?
        var writer: String
        /// Why the version does not decode.
        var unreadable: String?
        /// "changed A, B" or "changed nothing"; nil when not known.
        var changedKeys: String?
        /// True for a kept version that decodes.
        var canRestore: Bool
    }

    /// When a version was written: for machines and in words.
    struct Time {
        var timestamp: String
        var words: String
    }

    /// The history of `generations`, or of none because of `problem`.
    init(_ generations: [DomainGeneration], problem: String?) {
        self.problem = problem
        canUndo = generations.count > 1
        hasGenerations = !generations.isEmpty
        self.generations = generations.map { generation in
            Generation(
                number: generation.number, isCurrent: generation.isCurrent,
                time: generation.date.map {
                    Time(timestamp: $0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), words: GenerationText.text(of: $0))
                },
                writer: generation.writer.description, unreadable: generation.problem?.reason,
                changedKeys: generation.problem != nil ? nil : generation.changedKeys.map { $0.isEmpty ? "changed nothing" : "changed " + $0.joined(separator: ", ") },
                canRestore: !generation.isCurrent && generation.problem == nil)
        }
    }
}
