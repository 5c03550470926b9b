import LedgerDomain
import LedgerKit

// MARK: - FixedClock

/// A clock that reads a fixed instant, optionally advancing by `step` milliseconds after each read.
final class FixedClock: Clock {
    /// The instant the next `now()` returns.
    var instant: Timestamp
    /// Milliseconds added after each read (0: time stands still).
    var step: Int64

    /// 2026-11-29T09:00:00.000Z by default.
    init(_ instant: Timestamp = FixedClock.start, step: Int64 = 0) {
        self.instant = instant
        self.step = step
    }

    /// 2026-11-29T09:00:00.000Z.
    static let start = Timestamp(rfc3339: "2026-11-29T09:00:00.000Z")!

    func now() -> Timestamp {
        defer { instant = instant.adding(milliseconds: step) }
        return instant
    }
}

// MARK: - SeededRandom

/// Deterministic bytes from a seed (SplitMix64): the same seed always gives the same sequence.
final class SeededRandom: RandomSource {
    private var state: UInt64

    /// A generator starting at `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (bound > 0).
    func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with probability `1/n`.
    func oneIn(_ n: Int) -> Bool { next(n) == 0 }

    /// `count` deterministic bytes.
    func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    /// A random element of `items` (not empty).
    func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
}

/// Sign-in locks for a test whose sign-ins run one after another in this process (an in-memory
/// store, or only the record read): every acquire succeeds at once, and they are counted; the
/// pending-check marker is kept in memory (one for all emails: the sign-ins take turns).
final class SequentialSignInLocks: SignInLocks, HeldSignInLock {
    /// Locks taken so far.
    private(set) var taken = 0
    /// The marker noted and not cleared.
    private(set) var marker: PendingCheck?
    private(set) var leftover: PendingCheck?

    func acquire(email: String) throws -> any HeldSignInLock {
        taken += 1
        leftover = marker
        return self
    }

    func notePendingCheck(_ check: PendingCheck) throws { marker = check }

    func clearPendingCheck() throws { marker = nil; leftover = nil }

    func release() {}
}
