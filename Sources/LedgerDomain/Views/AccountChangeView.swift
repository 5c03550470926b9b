// MARK: - AccountChangeView

/// What happened to accounts after sign-up, in log order: disables and enables, password changes,
/// resets and reset requests, email verifications and changes, deletions by their owner or an
/// operator, and sessions revoked (ended by anything but their owner's sign-out). These events are
/// rare, so every one is kept.
public struct AccountChangeView: Equatable, Sendable {
    /// What an account change did.
    public enum Change: String, CaseIterable, Sendable {
        /// `AccountDisabled`.
        case disabled
        /// `AccountEnabled`.
        case enabled
        /// `PasswordChanged` (reason `change`).
        case passwordChanged = "password-changed"
        /// `PasswordChanged` (reason `reset`).
        case passwordReset = "password-reset"
        /// `PasswordResetRequested`.
        case resetRequested = "reset-requested"
        /// `EmailVerificationRequested`.
        case verificationRequested = "verification-requested"
        /// `EmailVerified`.
        case emailVerified = "email-verified"
        /// `EmailChanged`.
        case emailChanged = "email-changed"
        /// `AccountDeleted` by its owner or an operator (not a registration's compensation).
        case deleted
        /// `PersonalDataErased`: the account's personal data was erased (reason `account-deleted` or `operator`).
        case personalDataErased = "personal-data-erased"
        /// An `AccountDeleted` whose operator kept the personal data (a legal hold).
        case personalDataKept = "personal-data-kept"
    }

    /// One account change.
    public struct ChangeRow: Equatable, Sendable {
        /// The event's seq.
        public var seq: Int
        /// The event's time.
        public var at: Timestamp
        /// The account.
        public var uid: UUIDBits
        /// The account's email when the change was made (empty for an account never created): for an
        /// email change, the one it left; for a verification, the one verified.
        public var email: String
        /// What changed.
        public var change: Change
        /// A disable's operator reason, or a deletion's (`user-request`, `operator`); nil for the others.
        public var reason: String?
        /// An email change's new email; nil for the others.
        public var newEmail: String? = nil
    }

    /// One `SessionEnded` whose reason is a revocation (`SessionEndReason.revocations`).
    public struct RevokedRow: Equatable, Sendable {
        /// The event's seq.
        public var seq: Int
        /// The event's time.
        public var at: Timestamp
        /// The session's account.
        public var uid: UUIDBits
        /// The session.
        public var session: UUIDBits
        /// The `SessionEnded` reason.
        public var reason: String
    }

    /// Account changes, in log order.
    public internal(set) var changes: [ChangeRow] = []
    /// Revoked sessions, in log order.
    public internal(set) var revoked: [RevokedRow] = []

    /// Empty.
    public init() {}

    /// Applies one event; `users` names the account's email (read before the event changes it).
    mutating func apply(_ event: ViewEvent, users: UserView) {
        func add(_ uid: UUIDBits, _ change: Change, reason: String? = nil, email: String? = nil, newEmail: String? = nil) {
            changes.append(ChangeRow(seq: event.seq, at: event.at, uid: uid, email: email ?? users.account(uid)?.email.email ?? "",
                                     change: change, reason: reason, newEmail: newEmail))
        }
        switch event.fact {
        case .accountDisabled(let uid, let reason): add(uid, .disabled, reason: reason)
        case .accountEnabled(let uid): add(uid, .enabled)
        case .passwordChanged(let uid, let reason): add(uid, reason == .reset ? .passwordReset : .passwordChanged)
        case .passwordResetRequested(let uid): add(uid, .resetRequested)
        case .emailVerificationRequested(let uid): add(uid, .verificationRequested)
        case .emailVerified(let uid, let email): add(uid, .emailVerified, email: email)
        case .emailChanged(let uid, let email, let previous): add(uid, .emailChanged, email: previous, newEmail: email)
        case .accountDeleted(let uid, let reason, let kept) where reason.isLifecycle:
            add(uid, .deleted, reason: reason.rawValue)
            if kept { add(uid, .personalDataKept, reason: "legal hold: --keep-personal-data") }
        case .personalDataErased(let uid, let reason): add(uid, .personalDataErased, reason: reason.rawValue)
        case .sessionEnded(let session, let revocation?):
            revoked.append(RevokedRow(seq: event.seq, at: event.at, uid: revocation.uid, session: session, reason: revocation.reason))
        default:
            break
        }
    }
}

// MARK: - Rows as JSON

extension AccountChangeView.ChangeRow {
    /// The `accountChanges` row of `audit --json`: `{"seq","at","uid","email","change","reason"?,"newEmail"?}`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("seq", .int(seq)), ("at", .string(at.rfc3339)), ("uid", .string(uid.uuidString)),
                                              ("email", ErasedText.json(email))] + (ErasedText.isErased(email) ? [("erased", .bool(true))] : [])
                                              + [("change", .string(change.rawValue))]
        if let reason { members.append(("reason", .string(reason))) }
        if let newEmail { members.append(("newEmail", ErasedText.json(newEmail))) }
        return .object(JSONObject(members))
    }
}

extension AccountChangeView.ChangeRow {
    /// The row's detail as the tables show it: a reason, or an email change's new email; `-` when none.
    public func detail(showing email: (String) -> String = { $0 }) -> String {
        if let newEmail { return "new email " + ErasedText.forTable(email(newEmail)) }
        guard let reason, !reason.isEmpty else { return "-" }
        return reason
    }
}

extension AccountChangeView.RevokedRow {
    /// The `sessionsRevoked` row of `audit --json`: `{"seq","at","uid","sessionId","reason"}`.
    public var json: JSONValue {
        .object(JSONObject([("seq", .int(seq)), ("at", .string(at.rfc3339)), ("uid", .string(uid.uuidString)),
                            ("sessionId", .string(session.uuidString)), ("reason", .string(reason))]))
    }
}
