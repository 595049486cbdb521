/// A change the page asked for that cannot be made, and why, for the message beside its control.
package struct SettingRefusal: Error, Sendable, Equatable {
    /// The key (or the element of it) refused.
    package var key: String
    /// Why, in words.
    package var message: String

    /// Creates a refusal; `message` follows the key's name ("must be at most 10, not 11").
    package init(_ key: String, _ message: String) {
        self.key = key
        self.message = message
    }
}
