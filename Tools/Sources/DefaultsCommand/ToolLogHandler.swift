import Foundation
import JournaldLogging
package import Logging

/// The tool's log: every entry to journald when it is reachable, and on standard error the
/// warnings a user of the tool would otherwise never see.
///
/// Failures are not repeated here: every one is reported as the tool's own message. But a
/// write can succeed and still lose something the user counts on, and the library says so
/// only in its log: a history directory it refuses (a link, writable by others) means the
/// write kept no generation, so a later `defaults undo` has nothing to go back to.
///
/// `preferences-settings` logs through it too, under its own label.
package struct ToolLogHandler: LogHandler {
    /// journald's handler, or nil when no journal listens.
    private var journal: JournaldLogHandler?

    /// The metadata of every entry; kept in journald's handler too, which adds them to
    /// what it writes.
    package var metadata: Logger.Metadata = [:] {
        didSet { journal?.metadata = metadata }
    }
    /// The lowest level logged; journald's handler's too.
    package var logLevel: Logger.Level = .info {
        didSet { journal?.logLevel = logLevel }
    }

    /// The metadata fields whose warnings are shown: a history directory that is not used
    /// (the library's `historyUnusable` entry names it in this field), and a
    /// corelibs-Foundation file that was refused (`foundationImportRefused`'s source).
    static let shownFields: Set<String> = ["PREFERENCES_HISTORY_PATH", "PREFERENCES_SOURCE"]

    /// A handler labelled `label` that writes to journald when `journal` is true.
    package init(label: String, journal: Bool) {
        self.journal = journal ? JournaldLogHandler(label: label, metadataProvider: nil) : nil
        logLevel = self.journal?.logLevel ?? .info
    }

    /// One metadata field.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` to journald, and a warning about an unused history to standard error.
    package func log(event: LogEvent) {
        journal?.log(event: event)
        guard event.level == .warning, let fields = event.metadata?.keys, !Self.shownFields.isDisjoint(with: fields) else { return }
        try? FileHandle.standardError.write(contentsOf: Data("warning: \(event.message)\n".utf8))
    }
}
