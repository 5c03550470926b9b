// MARK: - FingerprintSet

/// A set of 64-bit id fingerprints (`UUIDBits.fingerprint(seed:)`, seeded mixes) that may answer
/// "maybe": a flat open-addressing table (linear probing, at most 70% full) placed by a
/// fingerprint's top bits and holding 31 of its low bits (`tag`), so that the table of a million
/// ids is 8 MiB, not 16: it stays mostly in the cache and its pages in the TLB. Two fingerprints
/// whose tags are equal in one probe run are a maybe (for a million ids, fewer than one read in a
/// thousand; a log writer who does not know the seed cannot aim for it): the caller then checks
/// the exact way. Filled a batch at a time: `insert(_:)` first touches the slot of every fingerprint
/// of the batch in one loop with no branch on what it reads, so the table's cache misses overlap
/// instead of coming one per line, then places them from the cache.
struct FingerprintSet: Sendable {
    /// Tags by slot; 0 marks an empty slot (a tag is never 0).
    private var slots: [UInt32] = []
    /// What the touching loop of `insert` read, kept so that the loop is not optimized away.
    private var touched: UInt32 = 0
    /// Fingerprints held.
    private(set) var count = 0

    /// An empty set, with no room.
    init() {}

    /// An empty set with room for `total` fingerprints. A tag does not say where its fingerprint
    /// was placed, so the set cannot grow: a caller that needs more room makes a larger one and
    /// inserts the fingerprints again.
    init(capacity total: Int) {
        var size = 16
        while total * 10 > size * 7 { size *= 2 }
        slots = [UInt32](repeating: 0, count: size)
    }

    /// True when `more` fingerprints fit (the table stays at most 70% full).
    func hasRoom(for more: Int) -> Bool { (count + more) * 10 <= slots.count * 7 }

    /// False when `fingerprint` is not held; true when it may be (it is, or a held one shares its tag).
    func mayContain(_ fingerprint: UInt64) -> Bool {
        guard !slots.isEmpty else { return false }
        let tag = Self.tag(fingerprint)
        return slots.withUnsafeBufferPointer { slots in
            let (mask, shift) = (slots.count - 1, Self.shift(slots.count))
            var i = Int(truncatingIfNeeded: fingerprint &>> shift) & mask
            while slots[i] != 0 {
                if slots[i] == tag { return true }
                i = (i + 1) & mask
            }
            return false
        }
    }

    /// Adds every fingerprint of `batch` (`hasRoom` for them); false when one of them may be held already or appears
    /// twice in it (the set then holds some of the batch: the caller gives up on the set).
    mutating func insert(_ batch: UnsafeBufferPointer<UInt64>) -> Bool {
        guard !batch.isEmpty else { return true }
        precondition(hasRoom(for: batch.count), "FingerprintSet.insert past its capacity")
        let (mask, shift) = (slots.count - 1, Self.shift(slots.count))
        var touched: UInt32 = 0
        let added: Int? = slots.withUnsafeMutableBufferPointer { slots in
            for value in batch { touched |= slots[Int(truncatingIfNeeded: value &>> shift) & mask] }
            var added = 0
            for value in batch {
                let tag = Self.tag(value)
                var i = Int(truncatingIfNeeded: value &>> shift) & mask
                while slots[i] != 0 {
                    if slots[i] == tag { return nil }
                    i = (i + 1) & mask
                }
                slots[i] = tag
                added += 1
            }
            return added
        }
        self.touched |= touched
        guard let added else { return false }
        count += added
        return true
    }

    /// What a slot keeps of `fingerprint`: its low bits, below those that place it (tables up to
    /// 2^32 slots), never 0.
    @inline(__always)
    private static func tag(_ fingerprint: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: fingerprint) | 1 }

    /// The right shift that takes a fingerprint's top bits to a slot of a table of `size` slots.
    private static func shift(_ size: Int) -> UInt64 { UInt64(64 - size.trailingZeroBitCount) }

}
