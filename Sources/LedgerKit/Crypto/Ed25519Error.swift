// MARK: - Ed25519Error

/// Why Ed25519 refused to make a key or a signature; `code` is stable, `message` is for people.
/// (A signature that does not verify is not an error: `Ed25519.verify` answers false.)
public struct Ed25519Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// A seed that is not 32 bytes, or a public key that is not 32 bytes.
        case invalidKey = "invalid-key"
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
