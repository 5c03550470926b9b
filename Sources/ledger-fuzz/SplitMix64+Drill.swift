#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - SplitMix64 for the drill

extension SplitMix64 {
    /// The generator of input `index` of a run seeded with `seed`, so any single input can be replayed
    /// (`--seed S --start I --iterations 1`) without generating the ones before it.
    init(seed: UInt64, index: UInt64) {
        var mixer = SplitMix64(seed: seed)
        self.init(state: mixer.next() &+ index &* 0xD1B5_4A32_D192_ED03)
        _ = next()
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// A size that is usually small: `0...limit`, with each doubling of the size about as likely as the last.
    mutating func size(upTo limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        let bits = Int.bitWidth - limit.leadingZeroBitCount
        return min(limit, below(1 << below(bits + 1)))
    }
}
