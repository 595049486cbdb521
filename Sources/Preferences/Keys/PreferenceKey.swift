/// A preference declared once with its name, type and default, Defaults-style.
///
/// ```swift
/// extension PreferenceKey where Value == Int {
///     static let interval = PreferenceKey("Interval", default: 30)
/// }
/// let seconds = store[.interval]     // Int, never nil
/// store[.interval] = 60
/// ```
///
/// Reading a typed key indexes an array by the key's slot: no hashing of the name, no
/// allocation. A stored value of another type reads as the default.
public struct PreferenceKey<Value: PreferenceValue>: Sendable {
    /// The key's name in the domain.
    public let name: String
    /// What a read returns when no layer holds a value of `Value`'s type.
    public let defaultValue: Value
    /// The key's index into every store's typed-value array.
    @usableFromInline let slot: Int

    /// Declares a key. Declare each key once (a `static let`): declaring costs a lookup.
    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultValue = defaultValue
        self.slot = KeySlots.slot(for: name)
    }
}
