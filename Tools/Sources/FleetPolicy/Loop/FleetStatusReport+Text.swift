package import Foundation

extension FleetStatusReport {
    /// The report for a terminal: a table with one line per domain (newest revision and the
    /// hosts in each state), then per domain the hosts that need attention (behind, with the
    /// revision they are on and since when; invalid, with each refused key and why; silent;
    /// unreadable), then the keys that could not be read.
    ///
    /// A host both behind and invalid is one line, `behind, invalid`. Current, valid hosts are
    /// only counted: with a thousand hosts the table is what fits on a screen.
    package var text: String {
        var lines = ["etcd revision \(revision), \(time); \(enrolled) \(enrolled == 1 ? "host" : "hosts") enrolled"]
        let header = ["DOMAIN", "NEWEST", "LIVE", "CURRENT", "BEHIND", "INVALID", "SILENT", "UNREADABLE"]
        let table = [header] + domains.map { domain in
            [domain.domain, String(domain.newestRevision)]
                + [domain.live, domain.current, domain.behind, domain.invalid, domain.silent, domain.unreadable].map { String($0) }
        }
        lines += Self.columns(table, rightAligned: 1..<header.count)
        let now = FleetTime.date(time)
        for domain in domains {
            let attention = domain.hosts.filter(\.needsAttention)
            guard !attention.isEmpty else { continue }
            lines.append("")
            lines.append("\(domain.domain): \(attention.count) \(attention.count == 1 ? "host needs" : "hosts need") attention")
            let width = attention.map(\.host.count).max() ?? 0
            // Behind first (what the administrator waits for), then refusals, silence, garbage.
            let order: [State: Int] = [.behind: 0, .current: 1, .silent: 2, .unreadable: 3]
            for row in attention.sorted(by: { (order[$0.state] ?? 9, $0.host) < (order[$1.state] ?? 9, $1.host) }) {
                let name = row.host.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(name)  \(Self.describe(row, now: now))")
                for reason in row.reasons {
                    lines.append("\(String(repeating: " ", count: width + 8))\(reason.key.isEmpty ? "" : reason.key + ": ")\(reason.reason)")
                }
            }
        }
        if !unreadable.isEmpty {
            lines.append("")
            lines.append("unreadable keys:")
            lines += unreadable.map { "  \($0.key): \($0.reason)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One attention line's words after the host name: the state, padded so that what
    /// follows starts in one column, then where the host is.
    private static func describe(_ row: Host, now: Date?) -> String {
        let words: String
        var place: String
        switch row.state {
        case .silent:
            words = "silent"
            place =
                row.reportsElsewhere == true
                ? "no status yet, though it reports other domains; should be at \(row.expected ?? 0)"
                : "no status (its lease expired, or it never reported); should be at \(row.expected ?? 0)"
        case .unreadable:
            words = "unreadable"
            place = row.problem ?? ""
        case .current, .behind:
            let revision = row.revision ?? 0
            words = [row.state == .behind ? "behind" : nil, row.isInvalid ? "invalid" : nil].compactMap(\.self).joined(separator: ", ")
            place = row.state == .behind ? "at \(revision) of \(row.expected ?? 0)" : "at \(revision)"
            if let since = row.since {
                place += ", since \(since)"
                if let now, let date = FleetTime.date(since) { place += " (\(duration(now.timeIntervalSince(date))))" }
            }
            if row.isInvalid { place += ", refused \(row.reasons.count) \(row.reasons.count == 1 ? "value" : "values"):" }
        }
        return words.padding(toLength: stateWidth, withPad: " ", startingAt: 0) + place
    }

    /// The width of the state column of attention lines: `behind, invalid` and two spaces.
    private static let stateWidth = 17

    /// `seconds` as a person reads it: `45s`, `3m12s`, `2h05m`, `3d04h`.
    package static func duration(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (days, hours, minutes, rest) = (total / 86_400, total / 3_600 % 24, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        if days > 0 { return "\(days)d\(two(hours))h" }
        if hours > 0 { return "\(hours)h\(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m\(two(rest))s" }
        return "\(rest)s"
    }

    /// `rows` as columns two spaces apart, the columns in `rightAligned` (numbers) aligned right.
    static func columns(_ rows: [[String]], rightAligned: Range<Int>) -> [String] {
        let widths = rows.reduce(into: [Int]()) { widths, row in
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return rightAligned.contains(index) ? pad + cell : (index == row.count - 1 ? cell : cell + pad)
            }.joined(separator: "  ")
        }
    }
}

extension FleetWaitVerdict {
    /// The verdict for a terminal: one line saying whether every live host reported the
    /// revision, then the hosts that refused values, that have not reported (when the wait
    /// `timedOut`), and that are silent.
    package func text(timedOut: Bool) -> String {
        var lines: [String] = []
        switch outcome {
        case .reported:
            lines.append("every live host (\(live)) reported revision \(revision), all valid")
        case .invalid:
            lines.append("every live host (\(live)) reported revision \(revision); \(invalid.count) refused values")
        case .pending where !reached:
            lines.append("etcd has not reached revision \(revision)\(timedOut ? " before the timeout" : "")")
        case .pending where live == 0:
            lines.append("no live host reports the domain\(timedOut ? " before the timeout" : ""): none has reported revision \(revision)")
        case .pending:
            lines.append(
                "\(pending.count) of \(live) live \(live == 1 ? "host has" : "hosts have") not reported revision \(revision)\(timedOut ? " before the timeout" : ""):")
            for host in pending {
                let place =
                    switch host.state {
                    case .unreadable: "its status cannot be read: \(host.problem ?? "")"
                    case .silent: "no status yet, though it reports other domains"
                    case .current, .behind: "at \(host.revision ?? 0), \(host.state.rawValue)"
                    }
                lines.append("  \(host.host) (\(host.domain)): \(place)")
            }
        }
        if !invalid.isEmpty {
            if outcome == .pending { lines.append("refused values:") }
            for host in invalid {
                lines.append("  \(host.host) (\(host.domain)) at \(host.revision ?? 0):")
                for reason in host.reasons {
                    lines.append("    \(reason.key.isEmpty ? "" : reason.key + ": ")\(reason.reason)")
                }
            }
        }
        if !silent.isEmpty {
            lines.append("silent, not waited for (enrolled, no status):")
            lines += silent.map { "  \($0.host) (\($0.domain))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
