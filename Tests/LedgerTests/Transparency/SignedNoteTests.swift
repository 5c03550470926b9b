import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedNoteTests

/// The signed-note rules beyond the vector: key texts (a `+` in the Base64, names, ids, types),
/// the note's shape, unknown keys ignored, a known key's bad line refused even when repeated, and
/// the limit on signature lines.
@Suite struct SignedNoteTests {
    /// The code `body` throws, nil when it does not.
    func code(_ body: () throws -> Void) -> NoteError.Code? {
        do { try body(); return nil } catch let error as NoteError { return error.code } catch {
            Issue.record("not a NoteError: \(error)")
            return nil
        }
    }

    @Test("a key whose Base64 holds `+` round-trips as skey and vkey (split at most four and two times)")
    func plusInBase64() throws {
        var found = 0
        for seed in 1...64 {
            let signer = try TestKeys.log("example.com/log", seed: UInt64(seed))
            let skey = signer.signerKeyText, vkey = signer.verifierKey.text
            guard skey.split(separator: "+").count > 5 || vkey.split(separator: "+").count > 3 else { continue }
            found += 1
            let again = try NoteSigner(NoteSignerKey(parsing: skey))
            #expect(again.verifierKey == signer.verifierKey)
            #expect(try NoteVerifierKey(parsing: vkey, crypto: .libcrypto) == signer.verifierKey)
        }
        #expect(found > 0)
    }

    @Test("key names: empty, `+`, spaces of any kind and control characters are refused; URLs and UTF-8 are fine")
    func keyNames() throws {
        for bad in ["", "a+b", "a b", "a\tb", "a\u{A0}b", "a\u{2003}b", "a\u{3000}b", "a\u{7F}b", "a\u{1}b", String(repeating: "x", count: 257)] {
            #expect(NoteKeyName.problem(bad) != nil, "\(bad.debugDescription)")
            #expect(code { _ = try NoteSignerKey(name: bad, keyID: 0, type: .ed25519, seed: [UInt8](repeating: 0, count: 32)) } == .badKeyName)
        }
        for good in ["example.com/log", "PeterNeumann", "grüße.example/ü", "a-b_c.d/e:f"] { #expect(NoteKeyName.problem(good) == nil) }
    }

    @Test("malformed keys: parts, id, Base64, type and size are each refused with their code")
    func malformedKeys() throws {
        let key = try TestKeys.log().verifierKey
        let parts = key.text.split(separator: "+", maxSplits: 2).map(String.init)
        func parse(_ text: String) -> NoteError.Code? { code { _ = try NoteVerifierKey(parsing: text, crypto: .libcrypto) } }
        #expect(parse(key.text) == nil)
        #expect(parse(key.text.uppercasedHex(parts)) == nil)  // Go reads the id in either case
        #expect(parse(parts[0] + "+" + parts[1]) == .malformedKey)
        #expect(parse(parts[0] + "+1234567+" + parts[2]) == .malformedKey)
        #expect(parse(parts[0] + "+1234567g+" + parts[2]) == .malformedKey)
        #expect(parse(parts[0] + "+" + parts[1] + "+" + parts[2].dropLast()) == .malformedKey)
        #expect(parse(parts[0] + "+" + parts[1] + "+" + Base64.encode([2] + key.publicKey)) == .unsupportedKeyType)
        #expect(parse(parts[0] + "+" + parts[1] + "+" + Base64.encode([1] + key.publicKey.dropLast())) == .malformedKey)
        #expect(parse("other+" + parts[1] + "+" + parts[2]) == .keyIDMismatch)
        #expect(parse(parts[0] + "+00000000+" + parts[2]) == .keyIDMismatch)
        // A signer key whose id is not its public key's.
        let skey = try TestKeys.log().signerKeyText
        let wrongID = skey.replacingOccurrences(of: "+" + parts[1] + "+", with: "+00000000+")
        #expect(code { _ = try NoteSigner(NoteSignerKey(parsing: wrongID)) } == .keyIDMismatch)
        #expect(code { _ = try NoteSignerKey(parsing: "PRIVATE+KEY+x") } == .malformedKey)
        #expect(code { _ = try NoteSignerKey(parsing: "PUBLIC+KEY+" + key.text) } == .malformedKey)
    }

    @Test("a note's shape: the text ends at the last blank line; no blank line, a control character or bad UTF-8 is malformed")
    func shape() throws {
        let signer = try TestKeys.log()
        let text = "first\n\nsecond paragraph\n"
        let line = try signer.sign(text: text).line
        let note = try SignedNote(parsing: Array((text + "\n" + line + "\n").utf8))
        #expect(note.text == text)
        #expect(note.formatted == text + "\n" + line + "\n")
        #expect(try note.verify(requiring: [signer.verifierKey], crypto: .libcrypto).count == 1)
        func parse(_ bytes: [UInt8]) -> NoteError.Code? { code { _ = try SignedNote(parsing: bytes) } }
        #expect(parse(Array(("one line\n" + line + "\n").utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n" + line).utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n").utf8)) == .malformedNote)
        #expect(parse(Array(("a\tb\n\n" + line + "\n").utf8)) == .malformedNote)
        #expect(parse(Array(("a\r\n\n" + line + "\n").utf8)) == .malformedNote)
        #expect(parse([0x61, 0xFF, 0x0A, 0x0A] + Array((line + "\n").utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n- name AAAAAAA=\n").utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n— name\n").utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n— na+me AAAAAAA=\n").utf8)) == .malformedNote)
        #expect(parse(Array((text + "\n— name AAAA\n").utf8)) == .malformedNote)  // fewer than 5 bytes
    }

    @Test("unknown keys' signatures are ignored; a known key's bad one refuses the note; none from a required key is bad-signature")
    func knownAndUnknown() throws {
        let log = try TestKeys.log(), other = try TestKeys.log("other.example/log", seed: 9)
        let text = "example.com/ledger\n1\n" + Digest32.zero.base64 + "\n"
        let good = try log.sign(text: text), foreign = try other.sign(text: text)
        let bogus = NoteSignature(name: "nobody.example", keyID: 7, signature: [UInt8](repeating: 1, count: 64))
        let note = try SignedNote(text: text, signatures: [bogus, foreign, good])
        #expect(try note.verify(requiring: [log.verifierKey], crypto: .libcrypto).map(\.key) == [log.verifierKey])
        #expect(code { _ = try note.verify(requiring: [log.verifierKey, other.verifierKey], crypto: .libcrypto) } == nil)
        let onlyForeign = try SignedNote(text: text, signatures: [foreign])
        #expect(code { _ = try onlyForeign.verify(requiring: [log.verifierKey], crypto: .libcrypto) } == .badSignature)
        // Same name, other id (or the reverse): another key, ignored.
        let sameName = NoteSignature(name: log.name, keyID: log.verifierKey.keyID ^ 1, signature: good.signature)
        #expect(code { _ = try SignedNote(text: text, signatures: [sameName, good]).verify(requiring: [log.verifierKey], crypto: .libcrypto) } == nil)
        var flipped = good.signature; flipped[10] ^= 1
        let bad = NoteSignature(name: good.name, keyID: good.keyID, signature: flipped)
        #expect(code { _ = try SignedNote(text: text, signatures: [bad]).verify(requiring: [log.verifierKey], crypto: .libcrypto) } == .badSignature)
        let short = NoteSignature(name: good.name, keyID: good.keyID, signature: Array(good.signature.dropLast()))
        #expect(code { _ = try SignedNote(text: text, signatures: [short]).verify(requiring: [log.verifierKey], crypto: .libcrypto) } == .badSignature)
    }

    @Test("a duplicated signature line counts once; a second, different line of the same key must verify too")
    func duplicatedLines() throws {
        let log = try TestKeys.log()
        let text = "example.com/ledger\n2\n" + Digest32.zero.base64 + "\n"
        let good = try log.sign(text: text)
        let twice = try SignedNote(parsing: Array((text + "\n" + good.line + "\n" + good.line + "\n").utf8))
        #expect(try twice.verify(requiring: [log.verifierKey], crypto: .libcrypto).count == 1)
        var flipped = good.signature; flipped[0] ^= 1
        let bad = NoteSignature(name: good.name, keyID: good.keyID, signature: flipped)
        #expect(code { _ = try SignedNote(text: text, signatures: [good, bad]).verify(requiring: [log.verifierKey], crypto: .libcrypto) } == .badSignature)
    }

    @Test("more than 100 signature lines are refused; 100 are read")
    func signatureLimit() throws {
        let log = try TestKeys.log()
        let text = "example.com/ledger\n3\n" + Digest32.zero.base64 + "\n"
        let good = try log.sign(text: text).line + "\n"
        let filler = (0..<99).map { NoteSignature(name: "w\($0).example", keyID: UInt32($0), signature: [UInt8](repeating: 3, count: 72)).line + "\n" }.joined()
        let hundred = try SignedNote(parsing: Array((text + "\n" + filler + good).utf8))
        #expect(try hundred.verify(requiring: [log.verifierKey], crypto: .libcrypto).count == 1)
        let extra = NoteSignature(name: "w.example", keyID: 1000, signature: [UInt8](repeating: 3, count: 72)).line + "\n"
        #expect(code { _ = try SignedNote(parsing: Array((text + "\n" + filler + extra + good).utf8)) } == .malformedNote)
    }
}

extension String {
    /// The key text with its id (`parts[1]`) in capitals.
    fileprivate func uppercasedHex(_ parts: [String]) -> String { parts[0] + "+" + parts[1].uppercased() + "+" + parts[2] }
}
