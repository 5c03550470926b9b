// MARK: - HashFilter

/// A one-hash Bloom filter over seeded hashes: `mayContain` is false only for a hash never inserted
/// since the last `rebuild`, so a view can skip a lookup it would make for nothing (a miss in a
/// table of megabytes) and make it only when the filter says maybe. It has no removal: the owner
/// rebuilds it from what it still holds when `needsRebuild` says it is too full to filter well.
struct HashFilter: Sendable {
    /// The bits, 64 per word; a power-of-two count of words (none while empty).
    private var words: [UInt64] = []
    /// Bits set.
    private(set) var setBits = 0
    /// Hashes inserted since the last rebuild.
    private(set) var inserted = 0

    /// An empty filter (says no to everything).
    init() {}

    // MARK: - Reads

    /// False when `hash` was not inserted since the last rebuild; true when it may have been.
    @inline(__always)
    func mayContain(_ hash: Int) -> Bool {
        guard !words.isEmpty else { return false }
        let (word, bit) = position(of: hash)
        return words.withUnsafeBufferPointer { $0[word] >> bit & 1 == 1 }
    }

    /// True when an eighth of the bits are set: a maybe for one hash in eight that was never inserted.
    var needsRebuild: Bool { setBits * 8 > words.count * 64 }

    // MARK: - Writes

    /// Inserts `hash` (the caller rebuilds first when `needsRebuild`).
    mutating func insert(_ hash: Int) {
        if words.isEmpty { words = [UInt64](repeating: 0, count: Self.minimumWords) }
        inserted += 1
        let (word, bit) = position(of: hash)
        let mask: UInt64 = 1 << bit
        words.withUnsafeMutableBufferPointer { words in
            if words[word] & mask == 0 {
                words[word] |= mask
                setBits += 1
            }
        }
    }

    /// Empties the filter and inserts `hashes` (`count` of them), sized so they set at most a
    /// sixteenth of its bits.
    mutating func rebuild(count: Int, hashes: some Sequence<Int>) {
        var size = Self.minimumWords
        while size * 64 < count * 16 { size *= 2 }
        words = [UInt64](repeating: 0, count: size)
        setBits = 0
        inserted = 0
        for hash in hashes { insert(hash) }
    }

    // MARK: - Layout

    /// 64 Kibit (8 KiB) at least.
    private static let minimumWords = 1 << 10

    /// The word and bit of `hash`: its low bits (the indexes place keys by the high ones).
    @inline(__always)
    private func position(of hash: Int) -> (word: Int, bit: UInt64) {
        let bits = UInt64(truncatingIfNeeded: hash)
        let word = Int(truncatingIfNeeded: bits >> 6) & (words.count - 1)
        return (word, bits & 63)
    }
}

extension HashFilter: Equatable {
    /// A filter is derived from its owner's rows, which the owner compares: any two are equal.
    static func == (lhs: HashFilter, rhs: HashFilter) -> Bool { true }
}
