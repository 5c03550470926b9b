import LedgerDomain

// MARK: - SessionToken

/// A random 256-bit session token; only its SHA-256 is ever stored.
public struct SessionToken: Sendable {
    /// The token, hex (shown once to its owner).
    public let value: String
    /// Lowercase hex SHA-256 of `value`, as stored in `SessionStarted.tokenHash`.
    public var hash: String { SHA256.hex(value) }

    /// A fresh token from `random`.
    public init(random: any RandomSource) { value = Identifiers.hex(random.bytes(32)) }
}
