package import PropertyList

/// A value on one line in old-style property-list syntax, for `watch`:
/// `{ a = 1; b = (x, "y z"); }`. Strings are quoted when `defaults read` would quote them.
package enum CompactText {
    /// The one-line text of a value; `(none)` for no value.
    package static func encode(_ value: PropertyListValue?) -> String {
        guard let value else { return "(none)" }
        switch value {
        case .array(let elements):
            return "(" + elements.map { encode($0) }.joined(separator: ", ") + ")"
        case .dictionary(let entries):
            let keys = entries.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            guard !keys.isEmpty else { return "{ }" }
            return "{ " + keys.map { key in "\(encode(.string(key))) = \(encode(entries[key]!));" }.joined(separator: " ") + " }"
        default:
            return OpenStepPropertyListEncoder(topLevelScalarStyle: .quotedIfNeeded).encode(value)
        }
    }
}
