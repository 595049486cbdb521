/// What an observation delivers, as `NSKeyValueObservingOptions` does for KVO.
public struct PreferenceObservationOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int

    /// Creates options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Deliver the value before the change in `oldValue`.
    public static let old = PreferenceObservationOptions(rawValue: 1 << 0)
    /// Deliver the value after the change in `newValue`.
    public static let new = PreferenceObservationOptions(rawValue: 1 << 1)
    /// Call the handler once at once, with the current value as `newValue`.
    public static let initial = PreferenceObservationOptions(rawValue: 1 << 2)
    /// Also call the handler before each change this process makes with a setter (`set`,
    /// `removeObject`, `trySet`; `isPrior` true). As on Apple's systems, changes from other
    /// processes arrive only after they happened; so do a transaction's, `modify`'s and
    /// `increment`'s, which are known only under the domain's lock.
    public static let prior = PreferenceObservationOptions(rawValue: 1 << 3)
}
