/// An open-addressing hash set of object numbers, keyed by a hash of the object.
///
/// The `Dictionary` it replaces hashed every scalar twice (once for its identity, once
/// more for the table) and copied identities in and out; this one stores the hash once
/// and leaves the comparison of candidates to the caller. Hashes come from `Hasher`,
/// which is seeded per process, so crafted input cannot force collisions.
struct UniquingTable {
    /// Zero for an empty slot; otherwise the object number plus one in the low 32 bits and
    /// the hash's low 32 bits in the high 32, so a probe passes over most other objects
    /// without looking at them, and the table can grow without rehashing any object.
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// Makes room for `capacity` objects at a load of at most one half.
    @inline(__always)
    mutating func reserve(capacity: Int) {
        if 2 * capacity > slots.count { grow(to: capacity) }
    }

    private mutating func grow(to capacity: Int) {
        var size = slots.count
        while 2 * capacity > size { size *= 2 }
        let old = slots
        slots = Array(repeating: 0, count: size)
        let mask = size - 1
        for entry in old where entry != 0 {
            var slot = Int(truncatingIfNeeded: entry >> 32) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    @inline(__always)
    func home(of hash: Int) -> Int {
        Int(UInt32(truncatingIfNeeded: hash)) & (slots.count - 1)
    }

    @inline(__always)
    func next(after slot: Int) -> Int {
        (slot + 1) & (slots.count - 1)
    }

    /// The object at `slot` if its hash may be `hash`, walking past those whose hash
    /// certainly differs; nil at the first empty slot, where the object would go.
    @inline(__always)
    func object(at slot: inout Int, hash: Int) -> Int? {
        let tag = UInt64(UInt32(truncatingIfNeeded: hash))
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if entry >> 32 == tag { return Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1 }
            slot = next(after: slot)
        }
    }

    @inline(__always)
    mutating func insert(_ object: Int, hash: Int, at slot: Int) {
        slots[slot] = UInt64(UInt32(truncatingIfNeeded: hash)) << 32 | UInt64(object + 1)
        count += 1
    }
}
