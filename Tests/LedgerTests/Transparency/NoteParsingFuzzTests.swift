import LedgerDomain
import LedgerKit
import Testing

// MARK: - NoteParsingFuzzTests

/// Hostile bytes never trap: thousands of mutations (flipped, cut, inserted and duplicated bytes,
/// newlines, em dashes, invalid UTF-8) of a valid witness request, of its signed head and of key
/// texts go through every parser and check; each either parses or throws its typed error, and a
/// mutated head that still verifies is one whose signed text is unchanged.
@Suite struct NoteParsingFuzzTests {
    /// `bytes` changed by one random edit.
    static func mutate(_ bytes: [UInt8], _ random: SeededRandom) -> [UInt8] {
        var out = bytes
        let at = out.isEmpty ? 0 : random.next(out.count)
        let specials: [[UInt8]] = [[0x0A], [0x0A, 0x0A], [0xE2, 0x80, 0x94, 0x20], [0xFF], [0x20], [0x2B], [0x3D], [0x00], [0x41]]
        switch random.next(6) {
        case 0 where !out.isEmpty: out[at] ^= UInt8(1 << random.next(8))
        case 1: out.removeSubrange(at..<out.count)
        case 2: out.insert(contentsOf: specials[random.next(specials.count)], at: at)
        case 3 where !out.isEmpty: out.remove(at: at)
        case 4: let end = min(out.count, at + random.next(40)); out.insert(contentsOf: out[at..<end], at: at)
        default: out.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
        }
        return out
    }

    @Test("mutated requests, heads and keys parse or throw their typed error; none traps")
    func hostileBytes() throws {
        let log = try TestKeys.log()
        let chain = SyntheticLog(signer: log, size: 21)
        let request = try chain.request(old: 13)
        let head = Array(try chain.head().utf8)
        let keys = [Array(log.verifierKey.text.utf8), Array(log.signerKeyText.utf8)]
        let headText = try SignedNote(parsing: head).text, root = try chain.root(21)
        let random = SeededRandom(seed: 2029)
        var verified = 0
        for round in 0..<3000 {
            var bytes = request
            for _ in 0...random.next(3) { bytes = Self.mutate(bytes, random) }
            if let parsed = try? AddCheckpointRequest(parsing: bytes),
               let (_, body) = try? WitnessCheck.request(parsed, logKey: log.verifierKey, crypto: .libcrypto) {
                #expect(body.text == headText, "round \(round)")
                verified += 1
            }
            var note = head
            for _ in 0...random.next(3) { note = Self.mutate(note, random) }
            if let body = try? SignedHead.verify(note, logKey: log.verifierKey) { #expect(body.size == 21 && body.root == root) }
            _ = try? SignedHead.appendingCosignatures(Self.mutate(Array("— w AAAAAAA=\n".utf8), random), to: String(decoding: head, as: UTF8.self))
            var key = keys[round % 2]
            for _ in 0...random.next(2) { key = Self.mutate(key, random) }
            _ = try? NoteVerifierKey(parsing: String(decoding: key, as: UTF8.self), crypto: .libcrypto)
            _ = try? NoteSignerKey(parsing: String(decoding: key, as: UTF8.self))
        }
        #expect(verified < 3000)
    }
}
