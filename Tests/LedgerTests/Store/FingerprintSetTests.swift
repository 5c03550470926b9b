@testable import LedgerDomain
import Testing

// MARK: - FingerprintSetTests

/// `FingerprintSet`, export's set of the ids seen so far, answers as a `Set<UInt64>` of the same
/// fingerprints where it must: a batch it takes holds no fingerprint seen before and none twice,
/// and every fingerprint it holds is a "maybe". Its only freedom is a false "maybe", which must be
/// a fingerprint sharing a held one's tag (its low 31 bits): over random batches of many sizes,
/// with repeats placed anywhere and fingerprints made to share tags or top bits.
struct FingerprintSetTests {
    /// What a slot keeps of a fingerprint, as the set's contract says (the low 32 bits, lowest set).
    private func tag(_ value: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: value) | 1 }

    /// The next fingerprint of a history: fresh, a repeat of an earlier one, or made to collide
    /// with one in its tag or in its top bits.
    private func fingerprint(_ random: SeededRandom, earlier: [UInt64]) -> UInt64 {
        guard let old = earlier.isEmpty ? nil : earlier[random.next(earlier.count)] else { return random.next() }
        switch random.next(20) {
        case 0: return old                                                        // a repeated id
        case 1: return (random.next() & ~0xFFFF_FFFF) | (old & 0xFFFF_FFFF)       // the same tag, placed elsewhere
        case 2: return (old & ~0xFFFF_FFFF) | (random.next() & 0xFFFF_FFFF)       // the same place, another tag
        case 3: return old ^ 1                                                    // the same tag (its low bit is forced)
        default: return random.next()
        }
    }

    @Test(arguments: 0..<40)
    func batchesAreTakenExactlyWhenASetWouldTakeThemOrATagIsShared(seed: Int) {
        let random = SeededRandom(seed: UInt64(seed) &* 0x9E37_79B9 &+ 7)
        let total = 1 + random.next(seed % 4 == 0 ? 20_000 : 2_000)
        var set = FingerprintSet(capacity: total)
        var held: Set<UInt64> = []
        var heldTags: Set<UInt32> = []
        var all: [UInt64] = []
        while held.count < total {
            let size = min(total - held.count, 1 + random.next(random.oneIn(4) ? 600 : 40))
            let batch = (0..<size).map { _ in fingerprint(random, earlier: all) }
            all += batch
            #expect(set.hasRoom(for: batch.count), "seed \(seed): room for \(held.count) + \(batch.count) of \(total)")
            let repeated = Set(batch).count < batch.count || batch.contains(where: held.contains)
            let taken = batch.withUnsafeBufferPointer { set.insert($0) }
            if taken {
                // A set would have taken it too: nothing seen before, nothing twice.
                #expect(!repeated, "seed \(seed): a batch with a repeated fingerprint was taken")
                held.formUnion(batch)
                heldTags.formUnion(batch.map(tag))
                #expect(set.count == held.count, "seed \(seed)")
            } else {
                // Refused: a repeat, or a tag the held ones or the batch share (a "maybe").
                let batchTags = batch.map(tag)
                let shared = Set(batchTags).count < batchTags.count || batchTags.contains(where: heldTags.contains)
                #expect(repeated || shared, "seed \(seed): a batch of new fingerprints with new tags was refused")
                // The caller gives up on the set; go on with a new one holding what was held.
                set = FingerprintSet(capacity: total)
                let kept = Array(held)
                #expect(kept.withUnsafeBufferPointer { set.insert($0) }, "seed \(seed): the held fingerprints again")
            }
        }
        for value in held { #expect(set.mayContain(value), "seed \(seed): a held fingerprint is not a maybe") }
        for _ in 0..<2_000 {
            let probe = fingerprint(random, earlier: all)
            if set.mayContain(probe) {
                #expect(held.contains(probe) || heldTags.contains(tag(probe)), "seed \(seed): a maybe with no held fingerprint of its tag")
            } else {
                #expect(!held.contains(probe), "seed \(seed): a held fingerprint answered no")
            }
        }
    }

    @Test func anEmptySetHoldsNothingAndTakesAnEmptyBatch() {
        var set = FingerprintSet()
        #expect(!set.mayContain(42))
        #expect([UInt64]().withUnsafeBufferPointer { set.insert($0) })
        #expect(set.count == 0)
    }
}
