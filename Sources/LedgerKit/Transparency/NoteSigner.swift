import LedgerDomain

// MARK: - NoteSigner

/// A signer key ready to sign: its public half derived and its key id checked. Signs a note's
/// text as a log (type 0x01) or cosigns a checkpoint as a witness (type 0x04).
public struct NoteSigner: Sendable {
    /// The key's name.
    public var name: String { key.name }
    /// The key's type.
    public var type: NoteKeyType { key.type }
    /// The public key that verifies what it signs (what `ledger keygen` writes to the .vkey).
    public let verifierKey: NoteVerifierKey
    /// The secret key.
    private let key: NoteSignerKey

    /// The signer of `key`; `key-id-mismatch` unless its stated id is its public key's.
    public init(_ key: NoteSignerKey) throws(NoteError) {
        let publicKey: [UInt8]
        do { publicKey = try Ed25519.publicKey(seed: key.seed) } catch { throw NoteError(.malformedKey, "the signer key's seed is not an Ed25519 key") }
        let verifierKey = try NoteVerifierKey(name: key.name, type: key.type, publicKey: publicKey, crypto: .libcrypto)
        guard verifierKey.keyID == key.keyID else {
            throw NoteError(.keyIDMismatch, "the signer key's id is not the id of its name and public key")
        }
        self.key = key; self.verifierKey = verifierKey
    }

    /// A new random key named `name` of `type`.
    public static func generate(name: String, type: NoteKeyType, random: some RandomSource) throws(NoteError) -> NoteSigner {
        let seed = Ed25519.newSeed(random: random)
        let publicKey: [UInt8]
        do { publicKey = try Ed25519.publicKey(seed: seed) } catch { throw NoteError(.malformedKey, "libcrypto made no Ed25519 key: \(error)") }
        let id = NoteCrypto.libcrypto.keyID(name: name, type: type, publicKey: publicKey)
        return try NoteSigner(NoteSignerKey(name: name, keyID: id, type: type, seed: seed))
    }

    /// The signer key's text (`PRIVATE+KEY+…`): secret, only ever written to a 0600 file.
    public var signerKeyText: String { key.text }

    /// The signature of `text` by this log key (type 0x01).
    public func sign(text: String) throws(NoteError) -> NoteSignature {
        guard key.type == .ed25519 else { throw NoteError(.malformedKey, "a witness key (type 4) cosigns checkpoints; it does not sign notes") }
        return NoteSignature(name: key.name, keyID: key.keyID, signature: try ed25519(Array(text.utf8)))
    }

    /// The cosignature of the checkpoint `text` at `timestamp` (Unix seconds) by this witness key (type 0x04).
    public func cosign(text: String, timestamp: UInt64) throws(NoteError) -> NoteSignature {
        guard key.type == .cosignatureV1 else { throw NoteError(.malformedKey, "a log key (type 1) signs notes; a witness cosigns with a key made by `ledger keygen --cosigner`") }
        guard timestamp <= Cosignature.maxTimestamp else { throw NoteError(.malformedNote, "a cosignature's time is at most 2^63 - 1") }
        let signature = try ed25519(Cosignature.message(timestamp: timestamp, text: text))
        return NoteSignature(name: key.name, keyID: key.keyID, signature: Cosignature.signatureBytes(timestamp: timestamp, signature: signature))
    }

    /// The Ed25519 signature of a record the signer keeps for itself (`SignerMemory`): `message`
    /// must begin with a domain text holding a NUL, so it is never a note's text or a cosigned message.
    func signRecord(_ message: [UInt8]) throws(NoteError) -> [UInt8] {
        precondition(message.contains(0), "a record's message starts with a domain text ending in a NUL")
        return try ed25519(message)
    }

    /// Ed25519 of `message` under the seed.
    private func ed25519(_ message: [UInt8]) throws(NoteError) -> [UInt8] {
        do { return try Ed25519.sign(message, seed: key.seed) } catch { throw NoteError(.malformedKey, "cannot sign: \(error)") }
    }
}
