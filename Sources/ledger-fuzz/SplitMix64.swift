// MARK: - SplitMix64

/// A small deterministic generator (Steele, Lea and Flood's SplitMix64): the same seed gives the same inputs.
/// Not for secrets; the drill only needs reproducible variety.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator started at `seed`.
    init(seed: UInt64) { state = seed }

    /// The generator of input `index` of a run seeded with `seed`, so any single input can be replayed
    /// (`--seed S --start I --iterations 1`) without generating the ones before it.
    init(seed: UInt64, index: UInt64) {
        var mixer = SplitMix64(seed: seed ^ 0x6A09_E667_F3BC_C908)
        state = mixer.next() &+ index &* 0xD1B5_4A32_D192_ED03
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// A random byte.
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

    /// A random element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A size that is usually small: `0...limit`, with each doubling of the size about as likely as the last.
    mutating func size(upTo limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        let bits = Int.bitWidth - limit.leadingZeroBitCount
        return min(limit, below(1 << below(bits + 1)))
    }
}
