// MARK: - AESGCMError

/// Why AES-256-GCM refused to seal or open; `code` is stable, `message` is for people.
public struct AESGCMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// The tag does not match: a wrong key, nonce or associated data, or a changed byte.
        case authenticationFailed = "authentication-failed"
        /// The key is not 32 bytes.
        case invalidKey = "invalid-key"
        /// The nonce is not 12 bytes.
        case invalidNonce = "invalid-nonce"
        /// The sealed message is shorter than its tag.
        case tooShort = "too-short"
        /// The message is larger than libcrypto's `int` lengths allow.
        case tooLarge = "too-large"
        /// A libcrypto call failed for another reason.
        case cryptoFailure = "crypto-failure"
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
