// MARK: - RuleBreak

/// A fact of the log that an account rule forbids, whatever wrote it (a bug, a race or an edit).
/// The account fold notes one where it happens, or `LedgerViews.ruleBreaksAfterwards` finds it in
/// the folded views (what a cache could hide from a fast command); `ledger audit` reports them as anomalies.
/// New kinds go last: a checkpoint stores a kind as its position in `allCases`.
public struct RuleBreak: Equatable, Sendable {
    /// Which rule.
    public enum Kind: String, Sendable, CaseIterable {
        /// An account was created for an email that a live account already held.
        case duplicateLiveAccount = "duplicate-live-account"
        /// A session started while the account's email was locked out.
        case signinWhileLocked = "signin-while-locked"
        /// A session started for an account that was never created, is deleted, or has no profile.
        case sessionWithoutAccount = "session-without-account"
        /// A password was checked (a `wrong-password` refusal) while the email was locked out: more
        /// checks than the lockout allows.
        case passwordCheckedWhileLocked = "password-checked-while-locked"
        /// A verification or reset token was redeemed (`EmailVerified`, a `PasswordChanged` reset)
        /// when the account had no unused one: a token redeemed twice (`LedgerViews.ruleBreaksAfterwards`).
        case tokenRedeemedTwice = "token-redeemed-twice"
        /// A session is still active although its account is disabled or deleted: the command that
        /// disabled or deleted it did not end it (`LedgerViews.ruleBreaksAfterwards`).
        case sessionActiveAfterDisable = "session-active-after-disable"
    }

    /// The rule broken.
    public var kind: Kind
    /// The seq of the event that broke it.
    public var seq: Int
    /// The account concerned.
    public var uid: UUIDBits

    /// A rule break from its parts.
    public init(kind: Kind, seq: Int, uid: UUIDBits) { self.kind = kind; self.seq = seq; self.uid = uid }
}
