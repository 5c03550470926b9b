// MARK: - NoteError

/// Why a signed-note key, note, checkpoint body or cosignature was refused; `code` is stable,
/// `message` is one line for people (it never holds a private key).
public struct NoteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// A key name that is empty, holds a `+`, a Unicode space or a control character, or is not UTF-8.
        case badKeyName = "bad-key-name"
        /// A verifier or signer key that does not parse (parts, hex key id, Base64, sizes).
        case malformedKey = "malformed-key"
        /// A key whose id is not the one its name, type and public key give.
        case keyIDMismatch = "key-id-mismatch"
        /// A key of a signature type this ledger does not use (only 0x01 and 0x04).
        case unsupportedKeyType = "unsupported-key-type"
        /// A note that is not a signed note (no blank line before the signatures, a control
        /// character, bytes that are not UTF-8, a signature line that does not parse, too many lines).
        case malformedNote = "malformed-note"
        /// A signature by a known key that does not verify, or no signature by a key that must sign.
        case badSignature = "bad-signature"
        /// A note text that is not a checkpoint body (origin, decimal size, Base64 root hash).
        case malformedCheckpoint = "malformed-checkpoint"
    }

    /// The stable code.
    public let code: Code
    /// A one-line message.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}
