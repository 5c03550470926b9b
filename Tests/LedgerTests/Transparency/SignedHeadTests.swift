import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedHeadTests

/// Signed heads as `ledger head --key` and `verify --signed-head` use them: the checkpoint body's
/// format, the note the log signs, witnesses' cosignatures (C2SP tlog-cosignature v1), and every
/// refusal `bad-signature` or `malformed-signed-head`.
@Suite struct SignedHeadTests {
    /// The code `body` throws, nil when it does not.
    func code(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let error as SignedHeadError { return error.code.rawValue } catch let error as NoteError {
            return error.code.rawValue
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("a checkpoint body: origin, decimal size without leading zeros, Base64 root; extension lines kept")
    func body() throws {
        let root = try SyntheticLog(signer: TestKeys.log(), size: 5).root(5)
        let body = try CheckpointBody(origin: "example.com/ledger", size: 5, root: root)
        #expect(body.text == "example.com/ledger\n5\n\(root.base64)\n")
        #expect(try CheckpointBody(parsing: body.text) == body)
        let extended = try CheckpointBody(parsing: body.text + "ext one\n")
        #expect(extended.extensions == ["ext one"] && extended.text == body.text + "ext one\n")
        for bad in ["o\n05\n\(root.base64)\n", "o\n-1\n\(root.base64)\n", "o\n5\n\(root.hex)\n", "o\n5\n", "\n5\n\(root.base64)\n",
                    "o\n5\n\(root.base64)\n\n", "o\n5\n\(root.base64)", "o\n18446744073709551616\n\(root.base64)\n", "o\n+5\n\(root.base64)\n"] {
            #expect(code { _ = try CheckpointBody(parsing: bad) } == "malformed-checkpoint", "\(bad.debugDescription)")
        }
        #expect(try CheckpointBody(parsing: "o\n0\n\(root.base64)\n").size == 0)
        #expect(try CheckpointBody(parsing: "o\n18446744073709551615\n\(root.base64)\n").size == UInt64.max)
    }

    @Test("sign then verify gives the origin, size and root; the origin defaults to the key's name")
    func roundTrip() throws {
        let log = try TestKeys.log()
        let chain = SyntheticLog(signer: log, size: 1234)
        let note = try chain.head()
        let body = try SignedHead.verify(Array(note.utf8), logKey: log.verifierKey)
        let root = try chain.root(1234)
        #expect(body.origin == "example.com/ledger" && body.size == 1234 && body.root == root)
        #expect(note.hasPrefix("example.com/ledger\n1234\n\(root.base64)\n\n— example.com/ledger "))
        let migrated = try SignedHead.sign(signer: log, origin: "example.com/ledger/2", size: 3, root: chain.root(3))
        #expect(try SignedHead.verify(Array(migrated.utf8), logKey: log.verifierKey).origin == "example.com/ledger/2")
    }

    @Test("a cosignature: the message is cosignature/v1, the time and the text; its bytes a timestamp then the signature")
    func cosignature() throws {
        let log = try TestKeys.log(), witness = try TestKeys.witness()
        let note = try SyntheticLog(signer: log, size: 7).head()
        let parsed = try SignedNote(parsing: Array(note.utf8))
        let cosig = try witness.cosign(text: parsed.text, timestamp: 1_679_315_147)
        #expect(Array(cosig.signature.prefix(8)) == [0, 0, 0, 0, 0x64, 0x18, 0x50, 0xCB])
        #expect(Cosignature.message(timestamp: 1_679_315_147, text: parsed.text) == Array(("cosignature/v1\ntime 1679315147\n" + parsed.text).utf8))
        #expect(Ed25519.verify(Array(cosig.signature[8...]), of: Cosignature.message(timestamp: 1_679_315_147, text: parsed.text),
                               publicKey: witness.verifierKey.publicKey))
        let cosigned = Array((note + cosig.line + "\n").utf8)
        let body = try SignedHead.verify(cosigned, logKey: log.verifierKey, witnessKeys: [witness.verifierKey])
        #expect(body.size == 7)
        // The timestamp is signed: another time fails.
        var later = cosig.signature; later[7] ^= 1
        let moved = Array((note + NoteSignature(name: cosig.name, keyID: cosig.keyID, signature: later).line + "\n").utf8)
        #expect(code { _ = try SignedHead.verify(moved, logKey: log.verifierKey, witnessKeys: [witness.verifierKey]) } == "bad-signature")
        // A log key cannot cosign, a witness key cannot sign a head.
        #expect(code { _ = try log.cosign(text: parsed.text, timestamp: 1) } == "malformed-key")
        #expect(code { _ = try witness.sign(text: parsed.text) } == "malformed-key")
        #expect(code { _ = try SignedHead.sign(signer: witness, size: 1, root: .zero) } == "malformed-key")
    }

    @Test("the log's side of a witness: the request body it sends, and the answer's lines appended to its head")
    func witnessRoundTrip() throws {
        try withTempDirectory { dir in
            let log = try TestKeys.log(), witnessKey = try TestKeys.witness()
            let chain = SyntheticLog(signer: log, size: 9)
            let note = try chain.head()
            let body = AddCheckpointRequest.body(oldSize: 0, proof: [], note: note)
            #expect(body == (try chain.request(old: 0)))
            let witness = try Witness(logKey: log.verifierKey, signer: witnessKey, statePath: dir + "/state", clock: FixedClock())
            let answer = Array((try witness.addCheckpoint(body).line + "\n").utf8)
            let cosigned = try SignedHead.appendingCosignatures(answer, to: note)
            #expect(cosigned.hasPrefix(note) && cosigned.split(separator: "\n").count == note.split(separator: "\n").count + 1)
            #expect(try SignedHead.appendingCosignatures(answer, to: cosigned) == cosigned)
            #expect(try SignedHead.verify(Array(cosigned.utf8), logKey: log.verifierKey, witnessKeys: [witnessKey.verifierKey]).size == 9)
            for bad in ["", "— w1\n", "oops\n", String(decoding: answer.dropLast(), as: UTF8.self)] {
                #expect(code { _ = try SignedHead.appendingCosignatures(Array(bad.utf8), to: note) } == "malformed-signed-head", "\(bad.debugDescription)")
            }
        }
    }

    @Test("refused as bad-signature: a missing witness, a changed size or root, a key of another name, a witness key given as the log's")
    func refusals() throws {
        let log = try TestKeys.log(), witness = try TestKeys.witness()
        let chain = SyntheticLog(signer: log, size: 10)
        let note = try chain.head()
        #expect(code { _ = try SignedHead.verify(Array(note.utf8), logKey: log.verifierKey, witnessKeys: [witness.verifierKey]) } == "bad-signature")
        let root = try chain.root(10).base64
        #expect(code { _ = try SignedHead.verify(Array(note.replacingFirst("\n10\n", "\n11\n").utf8), logKey: log.verifierKey) } == "bad-signature")
        #expect(code { _ = try SignedHead.verify(Array(note.replacingFirst(root, try chain.root(9).base64).utf8), logKey: log.verifierKey) } == "bad-signature")
        let sameSeedOtherName = try TestKeys.log("example.com/other", seed: 1)
        #expect(code { _ = try SignedHead.verify(Array(note.utf8), logKey: sameSeedOtherName.verifierKey) } == "bad-signature")
        #expect(code { _ = try SignedHead.verify(Array(note.utf8), logKey: witness.verifierKey) } == "bad-signature")
        #expect(code { _ = try SignedHead.verify(Array(note.utf8), logKey: log.verifierKey, witnessKeys: [log.verifierKey]) } == "bad-signature")
        #expect(code { _ = try SignedHead.verify(Array("not a note".utf8), logKey: log.verifierKey) } == "malformed-signed-head")
        #expect(code { _ = try SignedHead.verify(Array(("hello\n\n" + (try log.sign(text: "hello\n")).line + "\n").utf8), logKey: log.verifierKey) } == "malformed-signed-head")
    }
}

extension String {
    /// The string with the first `target` replaced by `replacement`.
    func replacingFirst(_ target: String, _ replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
