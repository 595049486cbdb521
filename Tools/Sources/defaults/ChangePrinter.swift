import DefaultsCommand
import Preferences

/// Prints one line per change for `watch`: `key: old → new`, or a JSON object.
struct ChangePrinter: Sendable {
    let json: Bool

    func print(_ change: PreferenceChange) {
        if json {
            Output.line(JSONText.object([
                ("key", JSONText.string(change.key)),
                ("old", change.oldValue.map { JSONText.encode($0, pretty: false) } ?? "null"),
                ("new", change.newValue.map { JSONText.encode($0, pretty: false) } ?? "null"),
                ("origin", JSONText.string(change.isFromThisProcess ? "thisProcess" : "anotherProcess")),
            ]))
        } else {
            Output.line("\(change.key): \(CompactText.encode(change.oldValue)) → \(CompactText.encode(change.newValue))")
        }
    }
}
