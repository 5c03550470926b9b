@testable import LedgerDomain
import Testing

// MARK: - RepeatGroupingTests

/// `RepeatedIDFinder.hasRepeat`, the end-of-read check that groups the fingerprints byte by byte in
/// place, answers as a set of every value does: over random values of many sizes (one level of
/// grouping, two, three), with a repeat anywhere, and over values alike in their top bytes (every
/// level down to the last byte).
struct RepeatGroupingTests {
    /// A seeded generator (SplitMix64) of values that are all distinct for these sizes.
    private func values(_ count: Int, seed: UInt64) -> [UInt64] {
        var state = seed
        return (0..<count).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private func hasRepeat(_ values: [UInt64]) -> Bool {
        var copy = values
        return copy.withUnsafeMutableBufferPointer { RepeatedIDFinder.hasRepeat($0) }
    }

    @Test(arguments: [0, 1, 2, 255, 256, 257, 5_000, 70_000, 300_000])
    func answersAsASetDoes(_ count: Int) {
        let distinct = values(count, seed: UInt64(count) &+ 1)
        #expect(Set(distinct).count == count)
        #expect(!hasRepeat(distinct), "\(count) distinct values")
        guard count > 0 else { return }
        for (from, to) in [(0, count), (count - 1, 0), (count / 2, count / 3), (count / 3, count - 1)] {
            var repeated = distinct
            repeated.insert(distinct[from], at: to)
            #expect(hasRepeat(repeated), "value \(from) again at \(to) of \(count)")
        }
    }

    @Test func valuesAlikeDownToTheLastByteAreToldApart() {
        // 1,000 values sharing their top 6 bytes, then 300 sharing 7: every level of grouping is
        // taken, the last ones with buckets past the small table's size.
        let top6: UInt64 = 0xA1B2_C3D4_E5F6 << 16
        let alike6 = (0..<1_000).map { top6 | UInt64($0 &* 37 & 0xFFFF) }
        let top7: UInt64 = 0x0102_0304_0506_07 << 8
        let alike7 = (0..<256).map { top7 | UInt64($0) }
        for group in [alike6, alike7, alike6 + alike7] {
            #expect(Set(group).count == group.count)
            #expect(!hasRepeat(group))
            #expect(hasRepeat(group + [group[group.count / 2]]))
            #expect(hasRepeat([group.last!] + group))
        }
        #expect(hasRepeat([UInt64](repeating: 42, count: 1_000)))
        #expect(hasRepeat([UInt64](repeating: 0, count: 2)))
    }

    @Test func theGroupingKeepsEveryValue() {
        var grouped = values(70_000, seed: 9)
        let before = grouped.sorted()
        _ = grouped.withUnsafeMutableBufferPointer { RepeatedIDFinder.hasRepeat($0) }
        #expect(grouped.sorted() == before)
    }
}
