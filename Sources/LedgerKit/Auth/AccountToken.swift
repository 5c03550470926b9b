import LedgerDomain

// MARK: - AccountToken

/// A verification or reset token: `<uid>.<64 hex digits>`, 256 random bits after the account's id,
/// so that redeeming it reads only that account's stream. Only its SHA-256 is ever stored.
public struct AccountToken: Sendable {
    /// The token (delivered once, in the message to the account's email).
    public let value: String
    /// Lowercase hex SHA-256 of `value`, as stored in the request event's `tokenHash`.
    public var hash: String { SHA256.hex(value) }

    /// A fresh token for the account `uid` from `random`.
    public init(uid: String, random: any RandomSource) { value = uid + "." + Identifiers.hex(random.bytes(32)) }

    /// The account a token names, when `text` has a token's shape (a lowercase uid, a dot, 64
    /// lowercase hex digits); nil for anything else.
    public static func uid(of text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, Identifiers.isLowercaseUUID(String(parts[0])), parts[1].utf8.count == 64,
              parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return String(parts[0])
    }
}
