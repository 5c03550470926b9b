import LedgerDomain

// MARK: - SignedHead

/// A signed head: a C2SP checkpoint (origin, tree size, root hash) signed by the log's key as a
/// C2SP signed note, optionally cosigned by witnesses. What `ledger head --key` prints and
/// `ledger verify --signed-head` checks.
public enum SignedHead {
    /// The signed note of the tree of `size` leaves with root `root`: its text is `origin` (default:
    /// the key's name), the size and the Base64 root, each on a line; its one signature line is
    /// `signer`'s. `signer` must be a log key (type 0x01).
    public static func sign(signer: NoteSigner, origin: String? = nil, size: UInt64, root: Digest32) throws(NoteError) -> String {
        let body = try CheckpointBody(origin: origin ?? signer.name, size: size, root: root)
        var note = try SignedNote(text: body.text)
        note.signatures.append(try signer.sign(text: body.text))
        return note.formatted
    }

    /// The checkpoint in `note` when `logKey` signed it and every key of `witnessKeys` cosigned it
    /// (signatures by other keys are ignored; any signature by one of these keys must verify).
    /// Comparing the size and root with the log is the caller's part.
    public static func verify(_ note: [UInt8], logKey: NoteVerifierKey, witnessKeys: [NoteVerifierKey] = []) throws(SignedHeadError) -> CheckpointBody {
        guard logKey.type == .ed25519 else { throw SignedHeadError(.badSignature, "the log's key must be a log key (type 1), not a witness key") }
        if let key = witnessKeys.first(where: { $0.type != .cosignatureV1 }) {
            throw SignedHeadError(.badSignature, "the witness key \(key.name) is not a witness key (type 4, made by `ledger keygen --cosigner`)")
        }
        let parsed: SignedNote
        let body: CheckpointBody
        do {
            parsed = try SignedNote(parsing: note)
            body = try CheckpointBody(parsing: parsed.text)
        } catch {
            throw SignedHeadError(.malformed, "not a signed head: \(error.message)")
        }
        do {
            _ = try parsed.verify(requiring: [logKey] + witnessKeys, crypto: .libcrypto)
        } catch {
            throw SignedHeadError(.badSignature, error.message)
        }
        return body
    }

    /// `note` with the signature lines of a witness's answer (`response`: one or more lines
    /// `— NAME BASE64`, each ending in a newline) appended, a line it already holds left out. The
    /// lines are only parsed here: whoever trusts a witness checks its cosignature with `verify`.
    /// `malformed-signed-head` when the answer is not signature lines or the note would pass 100.
    public static func appendingCosignatures(_ response: [UInt8], to note: String) throws(SignedHeadError) -> String {
        do throws(NoteError) {
            var parsed = try SignedNote(parsing: Array(note.utf8))
            guard response.last == 0x0A else { throw NoteError(.malformedNote, "a witness's answer is signature lines, each ending in a newline") }
            var start = 0
            while start < response.count {
                let end = response[start...].firstIndex(of: 0x0A)!
                let signature = try NoteSignature(parsingLine: response[start..<end])
                if !parsed.signatures.contains(signature) { parsed.signatures.append(signature) }
                start = end + 1
            }
            guard parsed.signatures.count <= SignedNote.maxSignatures else {
                throw NoteError(.malformedNote, "a note has at most \(SignedNote.maxSignatures) signature lines")
            }
            return parsed.formatted
        } catch {
            throw SignedHeadError(.malformed, "the witness's answer cannot be added to the signed head: \(error.message)")
        }
    }
}
