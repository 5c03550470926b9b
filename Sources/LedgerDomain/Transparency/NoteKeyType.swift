// MARK: - NoteKeyType

/// The signature type byte of a signed-note key (C2SP signed-note): what is signed, and how. Both
/// are Ed25519; they differ in the message (the note text, or the cosignature/v1 message) and in
/// the signature's bytes (a timestamp before the cosignature).
public enum NoteKeyType: UInt8, Sendable, CaseIterable {
    /// 0x01: Ed25519 over the note text — a log's key, which signs its heads.
    case ed25519 = 0x01
    /// 0x04: a timestamped Ed25519 checkpoint cosignature (C2SP tlog-cosignature) — a witness's key.
    case cosignatureV1 = 0x04

    /// Bytes of the signature that follows the key id in a signature line.
    public var signatureSize: Int {
        switch self {
        case .ed25519: return 64
        case .cosignatureV1: return 8 + 64
        }
    }

    /// How people call it (`log key`, `witness key`).
    public var label: String {
        switch self {
        case .ed25519: return "log key (Ed25519)"
        case .cosignatureV1: return "witness key (Ed25519 cosignature/v1)"
        }
    }
}
