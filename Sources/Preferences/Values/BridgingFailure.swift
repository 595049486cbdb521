/// The part of a value handed to the store that is not a property-list type, and where
/// it sits.
///
/// `set(_: Any?, forKey:)` on a non-property-list value is a programming error that
/// traps, as with `UserDefaults`; this is what the trap message is made from, so that it
/// can say `value of type Point at ["items"][2] is not a property-list type` rather than
/// only naming the outer dictionary.
package struct BridgingFailure: Error, Sendable, CustomStringConvertible {
    /// Where the offending part sits, as subscripts from the top of the value
    /// (`["items"][2]`); empty when it is the value itself.
    package let path: String
    /// The offending part's type, as Swift prints it.
    package let typeName: String
    /// What is wrong with it, completing "value of type T ...".
    package let reason: String

    /// Creates a failure for a part at the top of the value.
    init(type: Any.Type, reason: String) {
        path = ""
        typeName = String(describing: type)
        self.reason = reason
    }

    private init(path: String, typeName: String, reason: String) {
        self.path = path
        self.typeName = typeName
        self.reason = reason
    }

    /// The same failure, seen from the collection that holds it at `position` (`[2]`, `["key"]`).
    func inside(_ position: String) -> BridgingFailure {
        BridgingFailure(path: position + path, typeName: typeName, reason: reason)
    }

    /// `value of type T at [path] <reason>`.
    package var description: String {
        path.isEmpty ? "value of type \(typeName) \(reason)" : "value of type \(typeName) at \(path) \(reason)"
    }
}
