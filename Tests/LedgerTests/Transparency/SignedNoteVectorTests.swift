import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedNoteVectorTests

/// The published signed-note vector (`../shared/vectors/signed-note.json`, Go's `sumdb/note` test),
/// read in place: the skey (whose Base64 holds a `+`) signs the text into exactly the vector's
/// signature line, the vkey parses to the same key id, the note verifies, and a changed text,
/// signature or key name is refused.
@Suite struct SignedNoteVectorTests {
    /// The vector file's fields.
    struct Vector {
        let vkey: String, skey: String, text: String, signatureLine: String
    }

    /// The vector, read from `../shared/vectors/` beside the package root; a missing file fails the test.
    static func vector() throws -> Vector {
        let path = Paths.repo("../shared/vectors/signed-note.json")
        let data = try #require(FileManager.default.contents(atPath: path), "the shared vector \(path) is missing")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return Vector(vkey: try #require(object["vkey"] as? String), skey: try #require(object["skey"] as? String),
                      text: try #require(object["text"] as? String), signatureLine: try #require(object["signatureLine"] as? String))
    }

    @Test("the skey signs the text into the vector's signature line, byte for byte")
    func signsLikeGo() throws {
        let vector = try Self.vector()
        #expect(vector.skey.split(separator: "+").count > 5, "the vector's skey holds a `+` in its Base64")
        let signer = try NoteSigner(NoteSignerKey(parsing: vector.skey))
        let line = try signer.sign(text: vector.text).line
        #expect(Array(line.utf8) == Array(vector.signatureLine.utf8))
        #expect(signer.verifierKey.text == vector.vkey)
        #expect(try NoteSignerKey(parsing: vector.skey).text == vector.skey)
    }

    @Test("the vkey parses to the key id of the skey and verifies the note")
    func verifiesLikeGo() throws {
        let vector = try Self.vector()
        let vkey = try NoteVerifierKey(parsing: vector.vkey, crypto: .libcrypto)
        let skey = try NoteSignerKey(parsing: vector.skey)
        #expect(vkey.keyID == skey.keyID && vkey.keyID == 0xc74f20a3)
        #expect(vkey.name == "PeterNeumann" && vkey.type == .ed25519 && vkey.text == vector.vkey)
        let note = try SignedNote(parsing: Array((vector.text + "\n" + vector.signatureLine + "\n").utf8))
        #expect(note.text == vector.text)
        let verified = try note.verify(requiring: [vkey], crypto: .libcrypto)
        #expect(verified.map(\.key) == [vkey])
    }

    @Test("a changed text, signature or key name is refused")
    func mutationsRefused() throws {
        let vector = try Self.vector()
        let vkey = try NoteVerifierKey(parsing: vector.vkey, crypto: .libcrypto)
        func check(_ text: String, _ line: String) throws -> NoteError.Code? {
            do {
                _ = try SignedNote(parsing: Array((text + "\n" + line + "\n").utf8)).verify(requiring: [vkey], crypto: .libcrypto)
                return nil
            } catch { return error.code }
        }
        #expect(try check(vector.text, vector.signatureLine) == nil)
        #expect(try check(vector.text.replacingOccurrences(of: "answer", with: "Answer"), vector.signatureLine) == .badSignature)
        // The signature's last Base64 character before the padding, changed.
        var line = Array(vector.signatureLine)
        let at = line.count - 2
        line[at] = line[at] == "A" ? "B" : "A"
        #expect(try check(vector.text, String(line)) != nil)
        var flipped = Array(vector.signatureLine.utf8)
        flipped[flipped.count - 10] = flipped[flipped.count - 10] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        #expect(try check(vector.text, String(decoding: flipped, as: UTF8.self)) == .badSignature)
        // Another name: the signature is no known key's, so nothing verifies.
        #expect(try check(vector.text, vector.signatureLine.replacingOccurrences(of: "PeterNeumann", with: "PeterNeumanm")) == .badSignature)
        // A vkey whose name is changed no longer matches its key id.
        let renamed = vector.vkey.replacingOccurrences(of: "PeterNeumann", with: "PeterNeumanm")
        do {
            _ = try NoteVerifierKey(parsing: renamed, crypto: .libcrypto)
            Issue.record("a vkey whose name changed was accepted")
        } catch { #expect(error.code == .keyIDMismatch) }
    }
}
