/// One value in the tree ``PropertyListValueEncoder`` builds while a value encodes itself.
///
/// Containers hand out nested containers and super-encoders that may be written to
/// after the container that made them has been used and dropped, so the tree is built
/// of shared references and turned into a `PropertyListValue` only once encoding ends.
final class EncodingSlot {
    /// What has been encoded into a slot so far.
    enum Content {
        /// Nothing yet.
        case empty
        /// A nil, in a place that may leave it out (a dictionary entry).
        case omitted
        /// A finished scalar value.
        case value(PropertyListValue)
        /// A keyed container's entries.
        case keyed(Keyed)
        /// An unkeyed container's elements.
        case unkeyed(Unkeyed)
    }

    /// The entries of a keyed container, shared by every container requested for it.
    final class Keyed {
        var entries: [String: EncodingSlot] = [:]
    }

    /// The elements of an unkeyed container, shared by every container requested for it.
    final class Unkeyed {
        var elements: [EncodingSlot] = []
    }

    /// What the slot holds.
    var content: Content
    /// Whether encoding nil here leaves the value out (true for dictionary entries) or
    /// is an error (array elements and the top level: arrays cannot skip an element
    /// without shifting the rest, and there is no null to put there).
    let allowsNil: Bool

    init(allowsNil: Bool, content: Content = .empty) {
        self.allowsNil = allowsNil
        self.content = content
    }

    /// True if nothing has been encoded here.
    var isEmpty: Bool {
        if case .empty = content { true } else { false }
    }

    /// The finished value, or nil for an omitted nil.
    ///
    /// A slot that was handed to a value that then encoded nothing becomes an empty
    /// dictionary, as with Foundation's `JSONEncoder`.
    func resolved() -> PropertyListValue? {
        switch content {
        case .empty:
            return .dictionary([:])
        case .omitted:
            return nil
        case .value(let value):
            return value
        case .keyed(let keyed):
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(keyed.entries.count)
            for (key, slot) in keyed.entries {
                if let value = slot.resolved() { entries[key] = value }
            }
            return .dictionary(entries)
        case .unkeyed(let unkeyed):
            // Elements never hold an omitted nil (`allowsNil` is false for them), so
            // nothing is dropped here and positions are kept.
            return .array(unkeyed.elements.compactMap { $0.resolved() })
        }
    }

    /// A short name for what the slot already holds, for messages about misuse.
    var contentDescription: String {
        switch content {
        case .empty: "nothing"
        case .omitted: "a nil"
        case .value(let value): "a value of type \(value.typeName)"
        case .keyed: "a keyed container"
        case .unkeyed: "an unkeyed container"
        }
    }
}
