@testable import LedgerDomain
import Testing

// MARK: - UUIDSetTests

/// The replay's id set agrees with `Set<UUIDBits>` through growth, duplicates and the zero id
/// (which doubles as its empty-slot mark).
struct UUIDSetTests {
    @Test func agreesWithTheStandardSet() {
        let random = SeededRandom(seed: 5)
        var set = UUIDSet(), reference = Set<UUIDBits>()
        set.reserveCapacity(100)
        for step in 0..<50_000 {
            // Few distinct high words, so probes collide and wrap; the zero id now and then.
            let id = step % 997 == 0 ? UUIDBits.zero : UUIDBits(high: UInt64(random.next(64)), low: UInt64(random.next(40_000)))
            #expect(set.insert(id) == reference.insert(id).inserted)
            if step % 5 == 0 {
                let probe = UUIDBits(high: UInt64(random.next(64)), low: UInt64(random.next(40_000)))
                #expect(set.contains(probe) == reference.contains(probe))
            }
        }
        #expect(set.count == reference.count)
        #expect(set.contains(.zero) && reference.contains(.zero))
    }
}
