// MARK: - SignedNote + Verify

/// A signature of a note that verified under a known key.
public struct VerifiedNoteSignature: Sendable {
    /// The key that made it.
    public let key: NoteVerifierKey
    /// The cosignature's time (Unix seconds), nil for a log's signature.
    public let timestamp: UInt64?
}

extension SignedNote {
    /// Checks the signatures by `known` keys (C2SP signed-note): a line whose (name, key id) is no
    /// known key's is ignored; every line of a known key must verify (its bytes of the right size;
    /// for a cosignature key, over the cosignature/v1 message), else the whole note is refused with
    /// `bad-signature`. A line repeated is counted once; a second, different line of one key must
    /// verify too (stricter than Go, which skips it). Returns one verified signature per key that
    /// signed, in order of first appearance.
    public func verify(known: [NoteVerifierKey], crypto: NoteCrypto) throws(NoteError) -> [VerifiedNoteSignature] {
        var verified: [VerifiedNoteSignature] = []
        var seen = Set<NoteSignature>()
        let textBytes = Array(text.utf8)
        for signature in signatures where seen.insert(signature).inserted {
            let matching = known.filter { $0.name == signature.name && $0.keyID == signature.keyID }
            guard let key = matching.first else { continue }
            guard matching.allSatisfy({ $0 == key }) else {
                throw NoteError(.badSignature, "two known keys share the name \(key.name) and id \(NoteKeyText.hex(key.keyID))")
            }
            let refused = NoteError(.badSignature, "the signature by \(key.name)+\(NoteKeyText.hex(key.keyID)) does not verify")
            var timestamp: UInt64?
            switch key.type {
            case .ed25519:
                guard signature.signature.count == 64, crypto.verifyEd25519(signature.signature, textBytes, key.publicKey) else { throw refused }
            case .cosignatureV1:
                guard let (time, bytes) = Cosignature.split(signature.signature),
                      crypto.verifyEd25519(bytes, Cosignature.message(timestamp: time, text: text), key.publicKey) else { throw refused }
                timestamp = time
            }
            if !verified.contains(where: { $0.key == key }) { verified.append(VerifiedNoteSignature(key: key, timestamp: timestamp)) }
        }
        return verified
    }

    /// `verify(known:crypto:)` with every key of `required` among the signers: else `bad-signature`
    /// naming the first key without a valid signature.
    public func verify(requiring required: [NoteVerifierKey], crypto: NoteCrypto) throws(NoteError) -> [VerifiedNoteSignature] {
        let verified = try verify(known: required, crypto: crypto)
        if let missing = required.first(where: { key in !verified.contains { $0.key == key } }) {
            throw NoteError(.badSignature, "the note has no signature by \(missing.name)+\(NoteKeyText.hex(missing.keyID))")
        }
        return verified
    }
}
