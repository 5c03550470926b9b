@testable import LedgerDomain
import Testing

// MARK: - PositionIndexTests

/// The views' position index agrees with a dictionary through growth and repointing, for id keys
/// (seeded mix) and string keys (seeded byte hash).
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
        // `candidate` (no key read back) names where a lookup would look: a held key's row unless
        // another key's 32-bit tag comes first on its probe (next to never), nothing for an absent
        // key unless a tag matches.
        var agree = 0
        for (id, at) in reference {
            let candidate = index.candidate(id)
            #expect(candidate != nil)
            if candidate == at { agree += 1 }
        }
        #expect(agree * 1000 >= reference.count * 999)
        var absentWithACandidate = 0
        for n in 0..<10_000 where index.candidate(UUIDBits(high: 7, low: UInt64(n))) != nil { absentWithACandidate += 1 }
        #expect(absentWithACandidate <= 10)
        #expect(PositionIndex().candidate(UUIDBits(high: 1, low: 1)) == nil)
    }

    @Test func oneProbeInsertAndExchangeAgreeWithADictionary() {
        // `insertIfAbsent` and `exchange` (one probe each) against a dictionary, through growth,
        // with keys that come back; a new key's position names a row not added yet.
        let random = SeededRandom(seed: 31)
        var rows: [UUIDBits] = [], firsts = PositionIndex(), lasts = PositionIndex()
        var firstReference: [UUIDBits: Int32] = [:], lastReference: [UUIDBits: Int32] = [:]
        for _ in 0..<30_000 {
            let id = UUIDBits(high: UInt64(random.next(2)), low: UInt64(random.next(9_000)))
            let at = Int32(rows.count)
            let snapshot = rows
            let held = firsts.insertIfAbsent(id, at: at) { snapshot[Int($0)] }
            #expect(held == firstReference[id])
            if firstReference[id] == nil { firstReference[id] = at }
            let previous = lasts.exchange(id, with: at) { snapshot[Int($0)] }
            #expect(previous == lastReference[id])
            lastReference[id] = at
            rows.append(id)
        }
        #expect(firsts.count == firstReference.count && lasts.count == lastReference.count)
        for (id, at) in firstReference { #expect(firsts.find(id) { rows[Int($0)] } == at) }
        for (id, at) in lastReference { #expect(lasts.find(id) { rows[Int($0)] } == at) }
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

    @Test func seededStringHashIsStableAndSpreadsEveryLength() {
        // Every length from empty to past two 16-byte rounds, so each tail path runs; a string's
        // hash is its bytes' (a copy hashes the same) and one changed byte changes the hash.
        var seen = Set<Int>()
        for length in 0...40 {
            let text = String(repeating: "a", count: length)
            let copy = String(decoding: Array(text.utf8), as: UTF8.self)
            #expect(text.seededHash == copy.seededHash)
            #expect(seen.insert(text.seededHash).inserted, "length \(length) collides")
            for at in 0..<length {
                var bytes = Array(text.utf8)
                bytes[at] = UInt8(ascii: "b")
                #expect(String(decoding: bytes, as: UTF8.self).seededHash != text.seededHash, "byte \(at) of \(length)")
            }
        }
        // The tags (high 32 bits) of 100,000 similar emails spread: few repeat.
        var tags = Set<UInt32>()
        for n in 0..<100_000 { tags.insert(UInt32(truncatingIfNeeded: UInt64(bitPattern: Int64("user\(n)@example.com".seededHash)) >> 32)) }
        #expect(tags.count > 99_000)
    }

    @Test func theStringHashDependsOnTheSeed() {
        // Another seed gives another hash for (nearly) every string, on both sides of each round.
        var same = 0
        for n in 0..<10_000 {
            let bytes = Array("member\(n)@mail.example.org".utf8)
            let (one, other) = bytes.withUnsafeBytes {
                (SeededBytes.hash($0, seed: (1, 2)), SeededBytes.hash($0, seed: (1, 3)))
            }
            let (third, fourth) = bytes.withUnsafeBytes {
                (SeededBytes.hash($0, seed: (5, 2)), SeededBytes.hash($0, seed: (1, 2)))
            }
            if one == other || third == fourth { same += 1 }
            #expect(one == fourth, "the same seed gives the same hash")
        }
        #expect(same == 0)
    }
}
