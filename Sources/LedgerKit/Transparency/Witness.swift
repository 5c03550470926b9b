import LedgerDomain

// MARK: - Witness

/// A C2SP tlog-witness for one log: checks an `add-checkpoint` request against the checkpoint it
/// last cosigned and, only when it extends it, records the new one durably and returns the
/// cosignature. The read, the checks and the write happen under one exclusive lock
/// (compare-and-swap): two runs at once can never roll the state back.
public struct Witness {
    /// What a cosigned request gives.
    public struct Cosigned: Sendable {
        /// The checkpoint cosigned.
        public let body: CheckpointBody
        /// The size the witness held before (0 for its first checkpoint).
        public let oldSize: UInt64
        /// The cosignature's time, Unix seconds.
        public let timestamp: UInt64
        /// The cosignature line (`— NAME base64(key id ‖ timestamp ‖ signature)`), without a newline.
        public let line: String
    }

    /// The log's key: its name is the only origin this witness accepts.
    public let logKey: NoteVerifierKey
    /// The witness's signer (a type 0x04 key).
    public let signer: NoteSigner
    /// The state.
    public let state: WitnessStateFile
    /// The clock of the cosignature's timestamp.
    public let clock: any Clock

    /// A witness of `logKey` signing with `signer`, its state at `statePath`.
    public init(logKey: NoteVerifierKey, signer: NoteSigner, statePath: String, clock: any Clock) throws(NoteError) {
        guard logKey.type == .ed25519 else { throw NoteError(.malformedKey, "--log-vkey must be a log's key (type 1), not a witness key") }
        guard signer.type == .cosignatureV1 else { throw NoteError(.malformedKey, "--key must be a witness key, made by `ledger keygen --cosigner` (type 4)") }
        self.logKey = logKey; self.signer = signer; self.clock = clock
        state = WitnessStateFile(path: statePath, logKey: logKey, witnessKey: signer.verifierKey)
    }

    /// Cosigns the request in `bytes`, or throws the `WitnessError` the spec's status stands for
    /// (state unchanged); I/O errors as `SystemError`.
    public func addCheckpoint(_ bytes: [UInt8]) throws -> Cosigned {
        let request = try AddCheckpointRequest(parsing: bytes)
        let (note, body) = try WitnessCheck.request(request, logKey: logKey, crypto: .libcrypto)
        let lock = try state.lock()
        defer { lock.unlock() }
        let held = try state.load()
        try WitnessCheck.extends(body, request: request, held: held.map { ($0.size, $0.root) }, hasher: .sha256)
        let timestamp = UInt64(max(1, clock.now().millis / 1000))
        let cosignature = try signer.cosign(text: note.text, timestamp: timestamp)
        let logSignatures = note.signatures.filter { $0.name == logKey.name && $0.keyID == logKey.keyID }
        try state.save(SignedNote(text: note.text, signatures: Array(logSignatures.prefix(1)) + [cosignature]))
        return Cosigned(body: body, oldSize: held?.size ?? 0, timestamp: timestamp, line: cosignature.line)
    }
}
