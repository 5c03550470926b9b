// MARK: - NoteVerifierKey

/// A signed-note verifier key (a *vkey*, C2SP signed-note): `NAME+<key id, 8 hex>+<Base64 of type ‖
/// 32-byte Ed25519 public key>`. Public: a log publishes its vkey, a witness its own. Parsed as Go's
/// `note.NewVerifier` does (split at the first two `+`, since Base64 may hold more), and refused
/// unless the key id is the one the name, type and key give.
public struct NoteVerifierKey: Hashable, Sendable {
    /// The key name (for a log's key, the default origin of its heads).
    public let name: String
    /// The key id: the first 4 bytes of SHA-256(name ‖ 0x0A ‖ type ‖ public key), big-endian.
    public let keyID: UInt32
    /// What the key signs: a note's text (0x01) or a checkpoint cosignature (0x04).
    public let type: NoteKeyType
    /// The 32-byte Ed25519 public key.
    public let publicKey: [UInt8]

    /// The key of `name`, `type` and `publicKey`, its id computed.
    public init(name: String, type: NoteKeyType, publicKey: [UInt8], crypto: NoteCrypto) throws(NoteError) {
        try NoteKeyName.check(name)
        guard publicKey.count == 32 else { throw NoteError(.malformedKey, "an Ed25519 public key has 32 bytes; this one has \(publicKey.count)") }
        self.name = name; self.type = type; self.publicKey = publicKey
        keyID = crypto.keyID(name: name, type: type, publicKey: publicKey)
    }

    /// The key spelled by `text` (one line, without its newline).
    public init(parsing text: String, crypto: NoteCrypto) throws(NoteError) {
        let parts = NoteKeyText.split(text, maxSplits: 2)
        guard parts.count == 3 else { throw NoteError(.malformedKey, "a verifier key is NAME+KEYID+BASE64 (three parts joined by `+`)") }
        try NoteKeyName.check(parts[0])
        let id = try NoteKeyText.keyID(parts[1])
        let (type, material) = try NoteKeyText.typedKey(parts[2])
        try self.init(name: parts[0], type: type, publicKey: material, crypto: crypto)
        guard keyID == id else {
            throw NoteError(.keyIDMismatch, "the verifier key's id \(NoteKeyText.hex(id)) is not the id of its name and public key (\(NoteKeyText.hex(keyID)))")
        }
    }

    /// `NAME+<key id hex>+<Base64 of type ‖ public key>`, without a newline.
    public var text: String { "\(name)+\(NoteKeyText.hex(keyID))+\(Base64.encode([type.rawValue] + publicKey))" }
}

// MARK: - NoteKeyText

/// The parts shared by verifier and signer key texts.
enum NoteKeyText {
    /// `text` split at its first `maxSplits` `+` characters (Base64 after them may hold more).
    static func split(_ text: String, maxSplits: Int) -> [String] {
        text.split(separator: "+", maxSplits: maxSplits, omittingEmptySubsequences: false).map(String.init)
    }

    /// The key id spelled by exactly 8 hex digits (either case, as Go reads it).
    static func keyID(_ text: String) throws(NoteError) -> UInt32 {
        guard text.utf8.count == 8, text.utf8.allSatisfy(isHexDigit), let id = UInt32(text, radix: 16) else {
            throw NoteError(.malformedKey, "a key id is 8 hex digits")
        }
        return id
    }

    /// True for `0-9`, `a-f` and `A-F`.
    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    /// The signature type and 32 bytes of key material in canonical Base64 `text`.
    static func typedKey(_ text: String) throws(NoteError) -> (NoteKeyType, [UInt8]) {
        guard let bytes = Base64.decode(text), !bytes.isEmpty else { throw NoteError(.malformedKey, "a key's last part is padded Base64 of its type and key") }
        guard let type = NoteKeyType(rawValue: bytes[0]) else {
            throw NoteError(.unsupportedKeyType, "a key of signature type \(bytes[0]) is not supported (only 1, Ed25519, and 4, Ed25519 cosignature/v1)")
        }
        guard bytes.count == 33 else { throw NoteError(.malformedKey, "an Ed25519 key has 32 bytes after its type; this one has \(bytes.count - 1)") }
        return (type, Array(bytes[1...]))
    }

    /// The key id as 8 lowercase hex digits.
    static func hex(_ id: UInt32) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
