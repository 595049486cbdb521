/// One change of a key's effective value, as an observer receives it.
///
/// "Effective" means what reads return: a change hidden by a higher layer (a forced value,
/// a launch argument) is not a change, and removing a key that reveals a registered default
/// is a change to that default's value.
public struct PreferenceChange: Sendable, Hashable {
    /// Where a change was made.
    public enum Origin: Sendable, Hashable {
        /// A store in this process set, removed or registered the value.
        case thisProcess
        /// The domain's file changed on disk: another process, the `defaults` tool, or a
        /// hand edit.
        case anotherProcess
    }

    /// The key that changed.
    public let key: String
    /// The value before the change; nil if the key had none, or if the observation did not
    /// ask for `.old`.
    public let oldValue: PropertyListValue?
    /// The value after the change; nil if the key has none now, or if the observation did
    /// not ask for `.new`. In a prior notification, nil.
    public let newValue: PropertyListValue?
    /// Who made the change.
    public let origin: Origin
    /// True for the notification sent before a change this process makes (`.prior`).
    public let isPrior: Bool

    /// True if a store in this process made the change.
    public var isFromThisProcess: Bool { origin == .thisProcess }

    /// Creates a change.
    public init(key: String, oldValue: PropertyListValue?, newValue: PropertyListValue?, origin: Origin, isPrior: Bool = false) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.origin = origin
        self.isPrior = isPrior
    }
}

/// A typed key's change: old and new values with the key's type, defaults applied.
public struct TypedPreferenceChange<Value: PreferenceValue>: Sendable {
    /// The key that changed.
    public let key: PreferenceKey<Value>
    /// The value before the change (the key's default if it had none).
    public let oldValue: Value
    /// The value after the change (the key's default if it has none).
    public let newValue: Value
    /// Who made the change.
    public let origin: PreferenceChange.Origin
    /// True for the notification sent before a change this process makes (`.prior`).
    public let isPrior: Bool
}
