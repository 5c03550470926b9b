import LedgerDomain
import LedgerKit

// MARK: - SplitMix64 for the benchmark

extension SplitMix64 {
    /// True with probability `perMille` / 1000.
    mutating func chance(perMille: Int) -> Bool { below(1000) < perMille }
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
