// MARK: - UUIDSet

/// A set of 128-bit ids in one flat open-addressing table (linear probing, at most 70% full), hashed
/// with `seededHash`: the replay inserts one id per line, so this is on its hottest path.
struct UUIDSet: Sendable {
    /// Ids by slot; `UUIDBits.zero` marks an empty slot (the zero id itself is kept in `hasZero`).
    private var slots: [UUIDBits] = []
    private var hasZero = false
    /// Ids held.
    private(set) var count = 0

    /// An empty set.
    init() {}

    /// True when `id` is held.
    func contains(_ id: UUIDBits) -> Bool {
        if id == .zero { return hasZero }
        guard !slots.isEmpty else { return false }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = id.seededHash & mask
            while true {
                let held = slots[i]
                if held == id { return true }
                if held == .zero { return false }
                i = (i + 1) & mask
            }
        }
    }

    /// Adds `id`; false when it was already held.
    @discardableResult
    mutating func insert(_ id: UUIDBits) -> Bool {
        if id == .zero {
            defer { hasZero = true }
            if hasZero { return false }
            count += 1
            return true
        }
        if (count + 1) * 10 > slots.count * 7 { resize(to: Swift.max(16, slots.count * 2)) }
        let inserted = slots.withUnsafeMutableBufferPointer { slots -> Bool in
            let mask = slots.count - 1
            var i = id.seededHash & mask
            while true {
                let held = slots[i]
                if held == id { return false }
                if held == .zero {
                    slots[i] = id
                    return true
                }
                i = (i + 1) & mask
            }
        }
        if inserted { count += 1 }
        return inserted
    }

    /// Makes room for `total` ids without growing again.
    mutating func reserveCapacity(_ total: Int) {
        var size = Swift.max(16, slots.count)
        while total * 10 > size * 7 { size *= 2 }
        if size > slots.count { resize(to: size) }
    }

    private mutating func resize(to size: Int) {
        let old = slots
        slots = [UUIDBits](repeating: .zero, count: size)
        let mask = size - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for id in old where id != .zero {
                var i = id.seededHash & mask
                while slots[i] != .zero { i = (i + 1) & mask }
                slots[i] = id
            }
        }
    }
}
