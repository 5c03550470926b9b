// MARK: - FingerprintSet

/// A set of 64-bit id fingerprints in one flat open-addressing table (linear probing, at most 70%
/// full), filled a batch at a time: `insert(_:)` first touches the slot of every fingerprint of the
/// batch in one loop with no branch on what it reads, so the table's cache misses overlap instead
/// of coming one per line, then places them from the cache. The fingerprints are already seeded
/// mixes (`UUIDBits.fingerprint(seed:)`), so their top bits place them.
struct FingerprintSet: Sendable {
    /// Fingerprints by slot; 0 marks an empty slot (the fingerprint 0 itself is kept in `hasZero`).
    private var slots: [UInt64] = []
    private var hasZero = false
    /// What the touching loop of `insert` read, kept so that the loop is not optimized away.
    private var touched: UInt64 = 0
    /// Fingerprints held.
    private(set) var count = 0

    /// An empty set.
    init() {}

    /// Makes room for `total` fingerprints without growing again.
    mutating func reserveCapacity(_ total: Int) {
        var size = Swift.max(16, slots.count)
        while total * 10 > size * 7 { size *= 2 }
        if size > slots.count { resize(to: size) }
    }

    /// True when `fingerprint` is held.
    func contains(_ fingerprint: UInt64) -> Bool {
        if fingerprint == 0 { return hasZero }
        guard !slots.isEmpty else { return false }
        return slots.withUnsafeBufferPointer { slots in
            let (mask, shift) = (slots.count - 1, Self.shift(slots.count))
            var i = Int(truncatingIfNeeded: fingerprint &>> shift) & mask
            while slots[i] != 0 {
                if slots[i] == fingerprint { return true }
                i = (i + 1) & mask
            }
            return false
        }
    }

    /// Adds every fingerprint of `batch`; false when one of them was held already or appears twice
    /// in it (the set then holds some of the batch: the caller gives up on the set).
    mutating func insert(_ batch: UnsafeBufferPointer<UInt64>) -> Bool {
        guard !batch.isEmpty else { return true }
        if (count + batch.count) * 10 > slots.count * 7 { reserveCapacity(Swift.max(count + batch.count, slots.count)) }
        let (mask, shift) = (slots.count - 1, Self.shift(slots.count))
        var zeroSeen = false
        var touched: UInt64 = 0
        let added: Int? = slots.withUnsafeMutableBufferPointer { slots in
            for value in batch { touched |= slots[Int(truncatingIfNeeded: value &>> shift) & mask] }
            var added = 0
            for value in batch {
                if value == 0 {
                    if zeroSeen || hasZero { return nil }
                    zeroSeen = true
                    continue
                }
                var i = Int(truncatingIfNeeded: value &>> shift) & mask
                while slots[i] != 0 {
                    if slots[i] == value { return nil }
                    i = (i + 1) & mask
                }
                slots[i] = value
                added += 1
            }
            return added
        }
        self.touched |= touched
        guard let added else { return false }
        count += added + (zeroSeen ? 1 : 0)
        hasZero = hasZero || zeroSeen
        return true
    }

    /// The right shift that takes a fingerprint's top bits to a slot of a table of `size` slots.
    private static func shift(_ size: Int) -> UInt64 { UInt64(64 - size.trailingZeroBitCount) }

    private mutating func resize(to size: Int) {
        let old = slots
        slots = [UInt64](repeating: 0, count: size)
        let (mask, shift) = (size - 1, Self.shift(size))
        slots.withUnsafeMutableBufferPointer { slots in
            for value in old where value != 0 {
                var i = Int(truncatingIfNeeded: value &>> shift) & mask
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = value
            }
        }
    }
}
