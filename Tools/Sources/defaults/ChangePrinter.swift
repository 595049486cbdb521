import DefaultsCommand
import Preferences
import PropertyList

/// Prints one line per change for `watch`: `key: old → new`, or a JSON object. The values
/// of keys declared private are printed as `<private>` (`"<private>"` in JSON), and only
/// whether there is one.
struct ChangePrinter: Sendable {
    let json: Bool
    /// The domain's private keys.
    var privateKeys: Set<String> = []

    func print(_ change: PreferenceChange) {
        let isPrivate = privateKeys.contains(change.key)
        func text(_ value: PropertyListValue?) -> String {
            guard value != nil, isPrivate else { return CompactText.encode(value) }
            return DeclaredKey.privateValuePlaceholder
        }
        func jsonText(_ value: PropertyListValue?) -> String {
            guard let value else { return "null" }
            return isPrivate ? JSONText.string(DeclaredKey.privateValuePlaceholder) : JSONText.encode(value, pretty: false)
        }
        if self.json {
            Output.line(JSONText.object([
                ("key", JSONText.string(change.key)),
                ("old", jsonText(change.oldValue)),
                ("new", jsonText(change.newValue)),
                ("origin", JSONText.string(change.isFromThisProcess ? "thisProcess" : "anotherProcess")),
            ]))
        } else {
            Output.line("\(change.key): \(text(change.oldValue)) → \(text(change.newValue))")
        }
    }
}
