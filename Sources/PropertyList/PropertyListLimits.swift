/// The bounds the decoder holds a property list to, so that no input can make it use
/// unbounded time, memory or stack.
///
/// The defaults are the most the decoder ever accepts; a caller can only tighten them.
public struct PropertyListLimits: Sendable, Hashable {
    /// The default and greatest nesting depth: containers inside containers.
    public static let maximumDepth = 64
    /// The default and greatest number of objects a file may declare.
    public static let maximumObjectCount = 65_536
    /// The default and greatest number of values the decoded tree may hold once shared
    /// references are expanded (each reference to a shared subtree counts all of it).
    public static let maximumExpandedObjectCount = 100_000

    /// The defaults.
    public static let `default` = PropertyListLimits()

    /// How deeply containers may nest; the top-level container is depth 1.
    public let depth: Int
    /// How many objects the file may declare in its trailer.
    public let objectCount: Int
    /// How many values the decoded tree may hold, counting every use of a shared object.
    public let expandedObjectCount: Int

    /// Creates limits no looser than the defaults.
    ///
    /// - Precondition: each limit is at least 1 and at most its default; raising a limit
    ///   is a programming error, because the defaults are what keeps hostile input safe.
    public init(
        depth: Int = maximumDepth,
        objectCount: Int = maximumObjectCount,
        expandedObjectCount: Int = maximumExpandedObjectCount
    ) {
        precondition((1...Self.maximumDepth).contains(depth), "depth limit \(depth) is not in 1...\(Self.maximumDepth)")
        precondition(
            (1...Self.maximumObjectCount).contains(objectCount),
            "object count limit \(objectCount) is not in 1...\(Self.maximumObjectCount)")
        precondition(
            (1...Self.maximumExpandedObjectCount).contains(expandedObjectCount),
            "expanded object limit \(expandedObjectCount) is not in 1...\(Self.maximumExpandedObjectCount)")
        self.depth = depth
        self.objectCount = objectCount
        self.expandedObjectCount = expandedObjectCount
    }
}
