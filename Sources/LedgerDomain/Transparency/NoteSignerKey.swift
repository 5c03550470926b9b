// MARK: - NoteSignerKey

/// A signed-note signer key (an *skey*, as Go's `note.NewSigner` reads it):
/// `PRIVATE+KEY+NAME+<key id, 8 hex>+<Base64 of type ‖ 32-byte Ed25519 seed>`. Secret: it is read
/// from a file and never printed, logged, nor put in an argument or the environment. This is its
/// text form only; LedgerKit's `NoteSigner` derives the public key and checks the key id.
public struct NoteSignerKey: Sendable {
    /// The key name.
    public let name: String
    /// The key id the text states (checked against the derived public key by `NoteSigner`).
    public let keyID: UInt32
    /// What the key signs.
    public let type: NoteKeyType
    /// The 32-byte Ed25519 seed (the private key).
    public let seed: [UInt8]

    /// A key from its parts.
    public init(name: String, keyID: UInt32, type: NoteKeyType, seed: [UInt8]) throws(NoteError) {
        try NoteKeyName.check(name)
        guard seed.count == 32 else { throw NoteError(.malformedKey, "an Ed25519 seed has 32 bytes") }
        self.name = name; self.keyID = keyID; self.type = type; self.seed = seed
    }

    /// The key spelled by `text` (one line, without its newline). Split at its first four `+`:
    /// the Base64 after them may hold more. Messages never quote the text.
    public init(parsing text: String) throws(NoteError) {
        let parts = NoteKeyText.split(text, maxSplits: 4)
        guard parts.count == 5, parts[0] == "PRIVATE", parts[1] == "KEY" else {
            throw NoteError(.malformedKey, "a signer key is PRIVATE+KEY+NAME+KEYID+BASE64")
        }
        try NoteKeyName.check(parts[2])
        let id = try NoteKeyText.keyID(parts[3])
        let (type, seed) = try NoteKeyText.typedKey(parts[4])
        try self.init(name: parts[2], keyID: id, type: type, seed: seed)
    }

    /// `PRIVATE+KEY+NAME+<key id hex>+<Base64 of type ‖ seed>`, without a newline. Secret.
    public var text: String { "PRIVATE+KEY+\(name)+\(NoteKeyText.hex(keyID))+\(Base64.encode([type.rawValue] + seed))" }
}
