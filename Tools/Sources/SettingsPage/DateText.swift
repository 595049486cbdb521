import DefaultsCommand
import Foundation

/// Dates as the page's `datetime-local` inputs show them: UTC, to the second.
enum DateText {
    /// `2026-01-31T12:00:00`, in UTC.
    static func text(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String { String(value ?? 0).leftPadded(to: width) }
        return "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2))T\(pad(fields.hour, 2)):\(pad(fields.minute, 2)):\(pad(fields.second, 2))"
    }

    /// The date `text` names: `YYYY-MM-DDTHH:MM[:SS]` as UTC, or ISO 8601 with its zone.
    static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var candidates = [trimmed]
        if trimmed.count == 16 { candidates.append(trimmed + ":00Z") }
        if trimmed.count == 19 { candidates.append(trimmed + "Z") }
        for candidate in candidates {
            if let date = try? Date.ISO8601FormatStyle().parse(candidate) { return date }
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(candidate) { return date }
        }
        return nil
    }
}
