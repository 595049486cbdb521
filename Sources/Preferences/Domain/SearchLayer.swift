/// One place in the search list a value can come from, in precedence order: the first
/// layer (lowest raw value) that holds a key wins.
enum SearchLayer: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Administrator-forced values, `<system dir>/managed/<domain>.plist`.
    case managed
    /// `-Key value` launch arguments.
    case argument
    /// The store's domain for this machine only, `ByHost/<domain>.<machine-id>.plist`.
    case appByHost
    /// The store's domain, `<domain>.plist`.
    case app
    /// Suites added with `addSuite(named:)`, in the order they were added.
    case suite
    /// The global domain for this machine only.
    case globalByHost
    /// The global domain, `.GlobalPreferences.plist`.
    case global
    /// System-wide defaults for the domain, `<system dir>/<domain>.plist`.
    case system
    /// System-wide defaults for every domain, `<system dir>/.GlobalPreferences.plist`.
    case systemGlobal
    /// Values from `register(defaults:)`, in memory only.
    case registration
    /// The defaults the domain's schema declares, below what code registers.
    case declared

    static func < (lhs: SearchLayer, rhs: SearchLayer) -> Bool { lhs.rawValue < rhs.rawValue }
}
