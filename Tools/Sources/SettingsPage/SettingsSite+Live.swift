import DefaultsCommand
import Preferences

extension SettingsSite {
    /// Follows a domain's changes for one open page.
    package func subscribe(domain word: String) throws(PageError) -> LiveSubscription {
        let location = try data.location(word)
        return try feeds.subscribe(named: location.description) { handler throws(PageError) in
            try data.observeChanges(at: location, handler: handler)
        }
    }

    /// How many pages follow a domain now.
    package func livePageCount(domain word: String) -> Int {
        guard let location = try? data.location(word) else { return 0 }
        return feeds.pageCount(domain: location.description)
    }

    /// One Server-Sent Event telling a page of `keys`: `event: change` with the JSON
    /// `{"rows": [...], "history": "..."}` (the history changes with every commit).
    package func changeEvent(keys: [String], domain word: String, pane: String) -> String {
        guard let location = try? data.location(word) else { return ": unknown domain\n\n" }
        let rows = rowsJSON(keys: keys, location: location, pane: pane)
        let payload = "{\"rows\":\(rows),\"history\":\(JSONText.string(historySection(location)))}"
        // A data line ends at a newline; JSON text from JSONText has none outside strings,
        // where they are escaped.
        return "event: change\ndata: \(payload)\n\n"
    }
}
