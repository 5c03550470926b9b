import LedgerKit

// MARK: - SplitMix64

/// A small deterministic generator (Steele, Lea and Flood's SplitMix64): the same seed gives the
/// same log, byte for byte. Not for secrets; the benchmark only needs reproducible variety.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator started at `seed`.
    init(seed: UInt64) { state = seed ^ 0x6A09_E667_F3BC_C908 }

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

    /// True with probability `perMille` / 1000.
    mutating func chance(perMille: Int) -> Bool { below(1000) < perMille }

    /// A random element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            var word = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }
}

// MARK: - SeededRandom

/// `RandomSource` over a `SplitMix64`, so the store's and hasher's "random" bytes (event ids,
/// crypt salts) are reproducible in the generator and the append benchmark.
final class SeededRandom: RandomSource {
    private var generator: SplitMix64

    /// A source started at `seed`.
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// `count` reproducible bytes.
    func bytes(_ count: Int) -> [UInt8] { generator.bytes(count) }
}
