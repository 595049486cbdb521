
/// Gives every typed key name a small integer, once, so a typed read can index an array
/// instead of hashing the name.
///
/// Process-wide: two `PreferenceKey`s with the same name share a slot, and every store
/// keeps its resolved values for typed keys in an array indexed by slot.
enum KeySlots {
    private struct Table {
        var slots: [String: Int] = [:]
        var names: [String] = []
    }

    private static let state = ThreadLock(Table(), rank: .keySlots)

    /// The slot for `name`, assigning the next free one the first time.
    static func slot(for name: String) -> Int {
        state.withLock { table in
            if let slot = table.slots[name] { return slot }
            table.names.append(name)
            table.slots[name] = table.names.count - 1
            return table.names.count - 1
        }
    }

    /// The slot already assigned to `name`, if any (never assigns one).
    static func existingSlot(for name: String) -> Int? {
        state.withLock { $0.slots[name] }
    }

    /// Every name with a slot, indexed by slot.
    static var names: [String] {
        state.withLock { $0.names }
    }

    /// Every name and its slot, taken in one step (a store fills its typed-value array from it).
    static var table: [String: Int] {
        state.withLock { $0.slots }
    }
}
