package import Foundation
package import Preferences

/// A domain's versions as `defaults history` prints them: one line each, or JSON.
package enum GenerationText {
    /// One line: number, time, writer, the keys changed relative to the next older version,
    /// and where the values came from when the writer said, e.g.
    /// `4 (current)  2026-01-02 03:04:05.678 +0000  pid 123 (foo.service)  changed: a, b  (imported from ...)`.
    package static func line(_ generation: DomainGeneration) -> String {
        let number = generation.isCurrent ? "\(generation.number) (current)" : "\(generation.number)"
        let time = generation.date.map(text(of:)) ?? "(time unknown)"
        let changes: String
        if let problem = generation.problem {
            changes = "does not decode: \(problem.reason)"
        } else if let keys = generation.changedKeys {
            changes = keys.isEmpty ? "changed: nothing" : "changed: " + keys.joined(separator: ", ")
        } else {
            // The version before it is gone (pruned) or does not decode: nothing to compare with.
            changes = "changed: unknown (the version before it is not kept or does not decode)"
        }
        let origin = generation.origin.map { "  (\($0.summary))" } ?? ""
        return "\(number)  \(time)  writer \(generation.writer)  \(changes)\(origin)"
    }

    /// The versions as a JSON array of objects: `generation`, `current`, `time` (ISO 8601),
    /// `writer` (`library`, `edited outside the library` or `unknown`), `pid`, `unit`,
    /// `changed` (null when unknown), `path`, `problem` (null when it decodes) and `origin`
    /// (where the values came from, when the writer said; else null).
    package static func json(_ generations: [DomainGeneration]) -> String {
        "[" + generations.map { generation in
            var pid = "null", unit = "null", writer = "unknown"
            switch generation.writer {
            case .process(let id, let name):
                writer = "library"
                pid = String(id)
                unit = name.map(JSONText.string) ?? "null"
            case .editedOutsideLibrary: writer = "edited outside the library"
            case .unknown: break
            }
            return JSONText.object([
                ("generation", String(generation.number)),
                ("current", generation.isCurrent ? "true" : "false"),
                ("time", generation.date.map { JSONText.string($0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))) } ?? "null"),
                ("writer", JSONText.string(writer)),
                ("pid", pid),
                ("unit", unit),
                ("changed", generation.changedKeys.map { "[" + $0.map(JSONText.string).joined(separator: ",") + "]" } ?? "null"),
                ("path", JSONText.string(generation.path)),
                ("problem", generation.problem.map { JSONText.string($0.reason) } ?? "null"),
                ("origin", generation.origin.map { JSONText.string($0.summary) } ?? "null"),
            ])
        }.joined(separator: ",\n") + "]"
    }

    /// A time as `2026-01-02 03:04:05.678 +0000`, in UTC.
    package static func text(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        func pad(_ value: Int?, _ width: Int) -> String { String(value ?? 0).leftPadded(to: width) }
        return "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2)) \(pad(fields.hour, 2)):\(pad(fields.minute, 2)):\(pad(fields.second, 2)).\(pad((fields.nanosecond ?? 0) / 1_000_000, 3)) +0000"
    }
}
