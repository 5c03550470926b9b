// MARK: - PositionIndex

/// A hash index from a key to a position in an array its owner keeps. Each slot holds the position
/// and 32 bits of the key's hash; keys are read back from the owner's array (`keyAt`) only when those
/// bits match, so a probe rarely touches a row. About a third of the memory of a `[Key: Int32]`
/// dictionary, which matters for views of millions of rows. Ids hash with `UUIDBits.seededHash`,
/// strings (emails) with `String.seededHash`, other keys with the standard library's per-process
/// seeded `Hasher`, so crafted keys cannot force collisions. Positions are never removed (the views
/// only add rows and repoint keys).
struct PositionIndex: Sendable {
    /// `empty`, or the hash's high 32 bits (the tag) above the position. An entry's home slot is
    /// given by its tag's top bits, so growing re-places entries without reading a key back.
    private var slots: [UInt64] = []
    /// log2 of `slots.count` (0 while empty).
    private var bits = 0
    /// Positions held.
    private(set) var count = 0

    private static let empty = UInt64.max

    /// An empty index.
    init() {}

    // MARK: - Reads

    /// The position of `key`, if held.
    func find<Key: Hashable>(_ key: Key, keyAt: (Int32) -> Key) -> Int32? { find(key, where: { keyAt($0) == key }) }

    /// The position of `key`, if held, where `matches` says whether a position's row holds `key`
    /// (for an owner that keeps its keys in another form, such as text in a `TextArena`).
    func find<Key: Hashable>(_ key: Key, where matches: (Int32) -> Bool) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let tag = Self.tag(of: key)
        let home = self.home(tag)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = home
            while true {
                let slot = slots[i]
                if slot == Self.empty { return nil }
                if slot >> 32 == tag {
                    let position = Int32(truncatingIfNeeded: slot)
                    if matches(position) { return position }
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Where a lookup of `key` reads, for the shell's prefetch (no hinted address is read here, and
    /// a hint is all it is): at `.slots`, calls `hint` with its home slot and returns nil; at
    /// `.rows`, once that slot is in the cache, returns the position of the first entry along its
    /// probe whose tag is `key`'s (no key is read back), whose row the owner hints: the row a
    /// lookup will most likely compare.
    func prefetch<Key: Hashable>(_ key: Key, _ stage: PrefetchStage, _ hint: (UnsafeRawPointer) -> Void) -> Int32? {
        guard !slots.isEmpty else { return nil }
        switch stage {
        case .slots:
            let home = self.home(Self.tag(of: key))
            slots.withUnsafeBufferPointer { hint(UnsafeRawPointer($0.baseAddress! + home)) }
            return nil
        case .rows:
            return candidate(key)
        }
    }

    /// The position of the first entry along `key`'s probe whose tag is `key`'s, without reading
    /// any key back; nil when the probe meets no such entry.
    func candidate<Key: Hashable>(_ key: Key) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let tag = Self.tag(of: key)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = home(tag)
            while true {
                let slot = slots[i]
                if slot == Self.empty { return nil }
                if slot >> 32 == tag { return Int32(truncatingIfNeeded: slot) }
                i = (i + 1) & mask
            }
        }
    }

    // MARK: - Writes

    /// Points `key` at `position`: adds it, or repoints it when held.
    mutating func set<Key: Hashable>(_ key: Key, to position: Int32, keyAt: (Int32) -> Key) {
        _ = exchange(key, position, replacing: true, matches: { keyAt($0) == key })
    }

    /// Points `key` at `position`, where `matches` says whether a position's row holds `key` (see `find(_:where:)`).
    mutating func set<Key: Hashable>(_ key: Key, to position: Int32, where matches: (Int32) -> Bool) {
        _ = exchange(key, position, replacing: true, matches: matches)
    }

    /// Points every entry whose row holds `key` at `position` (`matches`, as `find(_:where:)`), or
    /// adds one when none does: for an owner whose rows change keys (an account's email). A row that
    /// leaves a key leaves its entry behind, and when the row takes the key back after another row
    /// took it, two entries hold the key; `find` would answer with whichever its probe meets first,
    /// an order a growth may reverse. Repointing them all keeps every one of them right.
    mutating func setEvery<Key: Hashable>(_ key: Key, to position: Int32, where matches: (Int32) -> Bool) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let tag = Self.tag(of: key)
        let home = self.home(tag)
        let entry = tag << 32 | UInt64(UInt32(bitPattern: position))
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var i = home, held = false
            while slots[i] != Self.empty {
                if slots[i] >> 32 == tag, matches(Int32(truncatingIfNeeded: slots[i])) {
                    slots[i] = entry
                    held = true
                }
                i = (i + 1) & mask
            }
            if !held {
                slots[i] = entry
                count += 1
            }
        }
    }

    /// Points `key` at `position` when it is not held, and returns nil; when it is held, leaves it
    /// and returns its position. One probe where `find` then `set` took two (a new key's `keyAt`
    /// is never called: `position` may name a row about to be added).
    mutating func insertIfAbsent<Key: Hashable>(_ key: Key, at position: Int32, keyAt: (Int32) -> Key) -> Int32? {
        exchange(key, position, replacing: false, matches: { keyAt($0) == key })
    }

    /// Points `key` at `position` and returns the position it pointed at before (nil when it was
    /// not held): one probe where `find` then `set` took two.
    mutating func exchange<Key: Hashable>(_ key: Key, with position: Int32, keyAt: (Int32) -> Key) -> Int32? {
        exchange(key, position, replacing: true, matches: { keyAt($0) == key })
    }

    /// The one walk of `set`, `insertIfAbsent` and `exchange`: adds `key` at `position`, or finds
    /// it (and repoints it when `replacing`) and returns where it was.
    private mutating func exchange<Key: Hashable>(_ key: Key, _ position: Int32, replacing: Bool, matches: (Int32) -> Bool) -> Int32? {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let tag = Self.tag(of: key)
        let home = self.home(tag)
        let entry = tag << 32 | UInt64(UInt32(bitPattern: position))
        return slots.withUnsafeMutableBufferPointer { slots -> Int32? in
            let mask = slots.count - 1
            var i = home
            while true {
                let slot = slots[i]
                if slot == Self.empty {
                    slots[i] = entry
                    count += 1
                    return nil
                }
                if slot >> 32 == tag, case let held = Int32(truncatingIfNeeded: slot), matches(held) {
                    if replacing { slots[i] = entry }
                    return held
                }
                i = (i + 1) & mask
            }
        }
    }

    /// The tag of `key`: the high 32 bits of `seededHash` for ids and strings (cheap), of
    /// `hashValue` for anything else.
    @inline(__always)
    private static func tag<Key: Hashable>(of key: Key) -> UInt64 {
        let hash: Int
        if let id = key as? UUIDBits {
            hash = id.seededHash
        } else if let text = key as? String {
            hash = text.seededHash
        } else {
            hash = key.hashValue
        }
        return UInt64(truncatingIfNeeded: hash) >> 32
    }

    /// The home slot of `tag`: its top `bits` bits.
    @inline(__always)
    private func home(_ tag: UInt64) -> Int { Int(truncatingIfNeeded: tag >> (32 - UInt64(bits))) }

    /// Doubles the slots and places every entry again (from its tag: no key is read back).
    private mutating func grow() {
        let old = slots
        bits = Swift.max(4, bits + 1)
        slots = [UInt64](repeating: Self.empty, count: 1 << bits)
        let shift = UInt64(32 - bits)
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            for entry in old where entry != Self.empty {
                var i = Int(truncatingIfNeeded: (entry >> 32) >> shift)
                while slots[i] != Self.empty { i = (i + 1) & mask }
                slots[i] = entry
            }
        }
    }
}

extension PositionIndex: Equatable {
    /// Indexes are derived from their owner's rows, which their owners compare; equal counts suffice.
    static func == (lhs: PositionIndex, rhs: PositionIndex) -> Bool { lhs.count == rhs.count }
}
