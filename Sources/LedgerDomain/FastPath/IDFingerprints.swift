// MARK: - IDFingerprints

/// The 64-bit fingerprints (`UUIDBits.fingerprint(seed:)`) of every id of a log's prefix, under one
/// seed, sorted and distinct: what a checkpoint carries so that a read starting after it still finds
/// a line whose id repeats one before it. A fingerprint of a later id found here is a "maybe" (a
/// repeat, or two ids that collide): the reader then reads the whole log the strict way.
public struct IDFingerprints: Equatable, Sendable {
    /// The seed of every fingerprint.
    public let seed: UUIDBits
    /// The fingerprints, strictly increasing.
    public let sorted: [UInt64]

    /// Fingerprints already sorted and distinct under `seed`; nil when `sorted` is not strictly increasing.
    public init?(seed: UUIDBits, sorted: [UInt64]) {
        for i in sorted.indices.dropFirst() where sorted[i - 1] >= sorted[i] { return nil }
        self.seed = seed
        self.sorted = sorted
    }

    /// The fingerprints of `ids` under `seed`; nil when two of them share one (a repeat or a collision).
    public init?(seed: UUIDBits, ids: some Sequence<UUIDBits>) {
        self.init(seed: seed, sorted: ids.map { $0.fingerprint(seed: seed) }.sorted())
    }

    /// A seed no log writer can know in advance (a collision only costs a strict read, but must not be aimed).
    public static func randomSeed() -> UUIDBits {
        // The standard library's randomly seeded `Hasher`, as every seeded hash of the core: the
        // core draws no random numbers of its own.
        var first = Hasher(), second = Hasher()
        first.combine(0x6670_7365_6564 as UInt64)
        second.combine(0x6670_7365_6565 as UInt64)
        return UUIDBits(high: UInt64(bitPattern: Int64(first.finalize())), low: UInt64(bitPattern: Int64(second.finalize())))
    }

    /// Ids fingerprinted.
    public var count: Int { sorted.count }

    /// True when `fingerprint` is one of these.
    public func contains(_ fingerprint: UInt64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < fingerprint { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == fingerprint
    }

    /// These and `more` (fingerprints under the same seed) merged; nil when any of them repeats.
    public func merged(with more: [UInt64]) -> IDFingerprints? {
        let added = more.sorted()
        var out: [UInt64] = []
        out.reserveCapacity(sorted.count + added.count)
        var i = 0, j = 0
        while i < sorted.count || j < added.count {
            let next: UInt64
            if j == added.count || (i < sorted.count && sorted[i] < added[j]) {
                next = sorted[i]; i += 1
            } else {
                next = added[j]; j += 1
            }
            if let last = out.last, last >= next { return nil }
            out.append(next)
        }
        return IDFingerprints(seed: seed, checkedSorted: out)
    }

    private init(seed: UUIDBits, checkedSorted: [UInt64]) { self.seed = seed; self.sorted = checkedSorted }
}
