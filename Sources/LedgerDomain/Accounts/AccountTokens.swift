// MARK: - AccountTokens

/// The verification and reset tokens of one account, folded from its `account-<uid>` stream: which
/// token of each kind may still be redeemed. A token is good only when it is the newest of its kind,
/// unused, unexpired, and (for a verification) for the email the account still holds. Redeeming
/// one is appending the event that uses it (`EmailVerified`, `PasswordChanged`) with the stream's
/// expected version, so two redemptions of one token cannot both succeed.
public struct AccountTokens: Equatable, Sendable {
    /// The two kinds of token.
    public enum Kind: String, Sendable, CaseIterable {
        /// Verifies the account's email (`EmailVerificationRequested`).
        case verification
        /// Resets the account's password (`PasswordResetRequested`).
        case reset

        /// How long a token of this kind lasts by default: 24 hours for a verification, 1 hour for a reset.
        public var defaultLifetime: Int64 { self == .verification ? 24 * 3600 * 1000 : 3600 * 1000 }
    }

    /// The newest token of a kind.
    struct Issued: Equatable, Sendable {
        var tokenHash: String
        var expiresAt: Timestamp
        /// The email a verification token verifies (nil for a reset token).
        var email: String?
        var used = false
    }

    private var verification: Issued?
    private var reset: Issued?

    /// No tokens.
    public init() {}

    /// Folds the account's stream, in order.
    public init(_ events: [LedgerEvent]) { events.forEach { apply($0) } }

    /// Folds the next event of the account's stream. Using a token, changing the password (which
    /// also ends an outstanding reset) or the email (which ends both) leaves nothing to redeem.
    public mutating func apply(_ event: LedgerEvent) {
        switch event {
        case .emailVerificationRequested(let e):
            verification = Issued(tokenHash: e.tokenHash, expiresAt: e.expiresAt, email: e.email)
        case .passwordResetRequested(let e):
            reset = Issued(tokenHash: e.tokenHash, expiresAt: e.expiresAt)
        case .emailVerified:
            verification?.used = true
        case .passwordChanged:
            reset?.used = true
        case .emailChanged:
            verification?.used = true; reset?.used = true
        case .accountDeleted:
            verification?.used = true; reset?.used = true
        default:
            break
        }
    }

    /// True when a token whose SHA-256 is `tokenHash` may be redeemed as `kind` at `now` by an
    /// account holding `accountEmail`. Every refusal is the same `false`: an unknown, used,
    /// superseded and expired token look alike to the caller.
    public func redeemable(_ kind: Kind, tokenHash: String, accountEmail: String, at now: Timestamp) -> Bool {
        guard let issued = kind == .verification ? verification : reset, !issued.used, now < issued.expiresAt,
              Self.sameDigest(issued.tokenHash, tokenHash) else { return false }
        return issued.email.map { $0 == accountEmail } ?? true
    }

    /// Compares two hex digests in time that depends only on their lengths.
    static func sameDigest(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
