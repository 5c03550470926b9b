// MARK: - WitnessCheck

/// The checks of a C2SP tlog-witness `add-checkpoint`, in the spec's order, as pure functions:
/// first those that need no state (`request`), then, under the witness's lock, those against the
/// checkpoint it last cosigned (`extends`). Nothing here writes or signs.
public enum WitnessCheck {
    /// The checkpoint of `request` when it is well formed (else `bad-request`), its origin is
    /// `logKey`'s name (else `unknown-origin`), `logKey` signed it (else `bad-signature`) and its
    /// old size is not past its size (else `bad-request`).
    public static func request(_ request: AddCheckpointRequest, logKey: NoteVerifierKey, crypto: NoteCrypto) throws(WitnessError) -> (note: SignedNote, body: CheckpointBody) {
        let note: SignedNote, body: CheckpointBody
        do {
            note = try SignedNote(parsing: request.note)
            body = try CheckpointBody(parsing: note.text)
        } catch {
            throw WitnessError(.badRequest, "the request's checkpoint is not a signed head: \(error.message)")
        }
        guard body.origin == logKey.name else {
            throw WitnessError(.unknownOrigin, "this witness follows the log \(logKey.name), not \(body.origin)")
        }
        do {
            _ = try note.verify(requiring: [logKey], crypto: crypto)
        } catch {
            throw WitnessError(.badSignature, error.message)
        }
        guard request.oldSize <= body.size else {
            throw WitnessError(.badRequest, "the old size \(request.oldSize) is past the checkpoint's size \(body.size)")
        }
        return (note, body)
    }

    /// Checks that `body` extends `held` (the size and root last cosigned; nil: none yet, the empty
    /// tree): the request's old size must be the held size (else `size-conflict`, with the held
    /// size), and its proof a consistency proof from the held root to `body`'s root (else
    /// `bad-proof`: an equal size with another root, a non-empty proof from size 0, a size-0
    /// checkpoint without the empty root, or a proof that does not verify — a fork).
    public static func extends(_ body: CheckpointBody, request: AddCheckpointRequest, held: (size: UInt64, root: Digest32)?,
                               hasher: MerkleHasher) throws(WitnessError) {
        let heldSize = held?.size ?? 0, heldRoot = held?.root ?? hasher.emptyRoot
        guard request.oldSize == heldSize else {
            throw WitnessError(.sizeConflict, "the witness last cosigned size \(heldSize), not \(request.oldSize): send the consistency proof from \(heldSize)",
                               heldSize: heldSize)
        }
        guard MerkleProof.verifyConsistency(oldSize: heldSize, newSize: body.size, oldRoot: heldRoot, newRoot: body.root,
                                            proof: request.proof, hasher: hasher) else {
            let what = heldSize == body.size ? "has another root than the one cosigned at that size" : "is not proved consistent with size \(heldSize)"
            throw WitnessError(.badProof, "the checkpoint of size \(body.size) \(what): a fork, or a wrong proof; not cosigned")
        }
    }
}
