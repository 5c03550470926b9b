// MARK: - AuthError

/// Errors of the auth room (hashing, sessions), with stable codes.
public struct AuthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// `LEDGER_HASH_COST` is not a valid cost.
        case invalidCost = "invalid-hash-cost"
        /// libxcrypt failed.
        case hashFailed = "hash-failed"
        /// The sign-in was refused (same message for unknown email and wrong password).
        case signInRefused = "sign-in-refused"
        /// No such active session.
        case noSession = "no-such-session"
        /// No account has that uid or email.
        case noAccount = "no-such-account"
    }

    /// The code.
    public let code: Code
    /// One-line message.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}
