// MARK: - PositionIndex

/// A hash index from a key to a position in an array its owner keeps: each slot holds only the
/// 4-byte position, and keys are read back from the owner's array (`keyAt`). About a fifth of the
/// memory of a `[Key: Int32]` dictionary, which matters for views of millions of rows. Hashing uses
/// the standard library's per-process seeded `Hasher`, so crafted keys cannot force collisions.
/// Positions are never removed (the views only add rows and repoint keys).
struct PositionIndex: Sendable {
    /// -1 for an empty slot; the count is a power of two.
    private var slots: [Int32] = []
    /// Positions held.
    private(set) var count = 0

    /// An empty index.
    init() {}

    // MARK: - Reads

    /// The position of `key`, if held.
    func find<Key: Hashable>(_ key: Key, keyAt: (Int32) -> Key) -> Int32? { find(key, hash: Self.hash(key), keyAt: keyAt) }

    private func find<Key: Hashable>(_ key: Key, hash: Int, keyAt: (Int32) -> Key) -> Int32? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = hash & mask
            while true {
                let position = slots[i]
                if position < 0 { return nil }
                if keyAt(position) == key { return position }
                i = (i + 1) & mask
            }
        }
    }

    // MARK: - Writes

    /// Points `key` at `position`: adds it, or repoints it when held.
    mutating func set<Key: Hashable>(_ key: Key, to position: Int32, keyAt: (Int32) -> Key) {
        if (count + 1) * 10 > slots.count * 7 { grow(keyAt: keyAt) }
        let mask = slots.count - 1
        var i = Self.hash(key) & mask
        slots.withUnsafeMutableBufferPointer { slots in
            while true {
                let held = slots[i]
                if held < 0 {
                    slots[i] = position
                    count += 1
                    return
                }
                if keyAt(held) == key {
                    slots[i] = position
                    return
                }
                i = (i + 1) & mask
            }
        }
    }

    /// The hash of `key`: `seededHash` for ids (cheap), `hashValue` for anything else.
    @inline(__always)
    private static func hash<Key: Hashable>(_ key: Key) -> Int {
        if let id = key as? UUIDBits { return id.seededHash }
        return key.hashValue
    }

    /// Doubles the slots and places every position again.
    private mutating func grow<Key: Hashable>(keyAt: (Int32) -> Key) {
        let old = slots
        slots = [Int32](repeating: -1, count: Swift.max(16, old.count * 2))
        let mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for position in old where position >= 0 {
                var i = Self.hash(keyAt(position)) & mask
                while slots[i] >= 0 { i = (i + 1) & mask }
                slots[i] = position
            }
        }
    }
}

extension PositionIndex: Equatable {
    /// Indexes are derived from their owner's rows, which their owners compare; equal counts suffice.
    static func == (lhs: PositionIndex, rhs: PositionIndex) -> Bool { lhs.count == rhs.count }
}
