@testable import LedgerDomain
import Testing

// MARK: - PositionIndexTests

/// The views' position index agrees with a dictionary through growth and repointing, for id keys
/// (seeded mix) and string keys (standard hashing).
struct PositionIndexTests {
    @Test func idKeysAgreeWithADictionary() {
        let random = SeededRandom(seed: 12)
        var rows: [UUIDBits] = [], index = PositionIndex(), reference: [UUIDBits: Int32] = [:]
        for _ in 0..<30_000 {
            // Ids from a small space, so the same key comes back and is repointed at a new row.
            let id = UUIDBits(high: UInt64(random.next(3)), low: UInt64(random.next(12_000)))
            let at = Int32(rows.count)
            rows.append(id)
            let snapshot = rows
            index.set(id, to: at) { snapshot[Int($0)] }
            reference[id] = at
            let probe = UUIDBits(high: UInt64(random.next(3)), low: UInt64(random.next(12_000)))
            #expect(index.find(probe) { snapshot[Int($0)] } == reference[probe])
        }
        #expect(index.count == reference.count)
        for (id, at) in reference { #expect(index.find(id) { rows[Int($0)] } == at) }
    }

    @Test func stringKeysAgreeWithADictionary() {
        var rows: [String] = [], index = PositionIndex(), reference: [String: Int32] = [:]
        for n in 0..<5_000 {
            let key = "user\(n % 1_700)@example.com"
            let at = Int32(rows.count)
            rows.append(key)
            let snapshot = rows
            index.set(key, to: at) { snapshot[Int($0)] }
            reference[key] = at
        }
        #expect(index.count == 1_700)
        for (key, at) in reference { #expect(index.find(key) { rows[Int($0)] } == at) }
        #expect(index.find("nobody@example.com") { rows[Int($0)] } == nil)
    }
}
