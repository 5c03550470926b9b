import LedgerDomain

// MARK: - AccountService: verification and reset tokens

extension AccountService {
    /// The one refusal of every token that cannot be redeemed: unknown, used, replaced by a newer
    /// one, expired, of another account or malformed alike. It never holds the token.
    public static let tokenRefusal = "the token is not valid (it may be used, expired or replaced by a newer one); request a new one"

    /// A token that was issued: what to send, and what was appended.
    public struct IssuedToken: Sendable {
        /// The token in clear, for the message to `outcome.email` only.
        public var token: AccountToken
        /// The request appended.
        public var outcome: Outcome
    }

    /// Issues a token of `kind` to the account whose email is `email`: appends its request
    /// (`EmailVerificationRequested` or `PasswordResetRequested`, with the token's hash, expiring
    /// after `lifetime` milliseconds, the kind's default when nil). Returns nil, having appended
    /// nothing, when no account may get one: the email is unknown, or its account is pending,
    /// disabled, deleted, or (for a verification) already verified; the caller answers alike.
    public func issue(_ kind: AccountTokens.Kind, email: String, lifetime: Int64? = nil, random: any RandomSource) throws -> IssuedToken? {
        let email = EmailRule.normalized(email)  // as sign-up and sign-in normalize it
        guard email.contains("@") else { return nil }  // an email, never a uid
        var token: AccountToken?
        do {
            let outcome = try run(account: email) { standing in
                let issued = AccountToken(uid: standing.uid, random: random)
                token = issued
                let expiresAt = clock.now().adding(milliseconds: lifetime ?? kind.defaultLifetime)
                switch kind {
                case .verification: return .requestVerification(tokenHash: issued.hash, expiresAt: expiresAt)
                case .reset: return .requestReset(tokenHash: issued.hash, expiresAt: expiresAt)
                }
            }
            return token.map { IssuedToken(token: $0, outcome: outcome) }
        } catch is AccountRefusal {
            return nil
        } catch let error as AuthError where error.code == .noAccount {
            return nil
        }
    }

    /// Redeems `token` as a token of `kind` by running `action` on its account. The account's stream
    /// is read under its email's sign-in lock and after the version the append expects, so two
    /// redemptions of one token cannot both succeed: the second's append fails, and reading again
    /// finds the token used. Throws `AccountRefusal(.tokenRefused)` for any token `AccountTokens` does not
    /// find redeemable, and another `AccountRefusal` when the account's state does not allow `action`.
    /// The token's state is folded from the account's stream read through the whole verified log.
    public func redeem(_ kind: AccountTokens.Kind, token: String, _ action: AccountAction) throws -> Outcome {
        let refused = AccountRefusal(code: .tokenRefused, message: Self.tokenRefusal)
        guard let uid = AccountToken.uid(of: token) else { throw refused }
        let tokenHash = SHA256.hex(token)
        let stream = StreamCategory.account.stream(uid)
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try run(account: uid) { standing in
                    // The whole verified log, not the index's slot of the stream: a slot shortened to
                    // forget the token's use would let it work again.
                    let tokens = AccountTokens(try store.readStream(stream).map(\.event))
                    guard tokens.redeemable(kind, tokenHash: tokenHash, accountEmail: standing.email, at: clock.now()) else { throw refused }
                    return action
                }
            } catch let error as AuthError where error.code == .noAccount {
                throw refused
            } catch let error as StoreError where error.code == .wrongExpectedVersion && attempts < 5 {
                continue  // another writer went first: decide again from what it wrote
            }
        }
    }
}
