// MARK: - AccountChangeView

/// What operators did to accounts after sign-up, in log order: disables and enables, and sessions
/// revoked (ended by `sign-out-everywhere` or a disable). These events are rare, so every one is kept.
public struct AccountChangeView: Equatable, Sendable {
    /// What an account change did.
    public enum Change: String, CaseIterable, Sendable {
        /// `AccountDisabled`.
        case disabled
        /// `AccountEnabled`.
        case enabled
    }

    /// One `AccountDisabled` or `AccountEnabled`.
    public struct ChangeRow: Equatable, Sendable {
        /// The event's seq.
        public var seq: Int
        /// The event's time.
        public var at: Timestamp
        /// The account.
        public var uid: UUIDBits
        /// The account's email when the change was made (empty for an account never created).
        public var email: String
        /// What changed.
        public var change: Change
        /// The operator's reason (a disable's; nil for an enable).
        public var reason: String?
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

    /// Disables and enables, in log order.
    public internal(set) var changes: [ChangeRow] = []
    /// Revoked sessions, in log order.
    public internal(set) var revoked: [RevokedRow] = []

    /// Empty.
    public init() {}

    /// Applies one event; `users` names the account's email (read before the event changes it).
    mutating func apply(_ event: ViewEvent, users: UserView) {
        switch event.fact {
        case .accountDisabled(let uid, let reason):
            changes.append(ChangeRow(seq: event.seq, at: event.at, uid: uid, email: users.account(uid)?.email.email ?? "",
                                     change: .disabled, reason: reason))
        case .accountEnabled(let uid):
            changes.append(ChangeRow(seq: event.seq, at: event.at, uid: uid, email: users.account(uid)?.email.email ?? "",
                                     change: .enabled, reason: nil))
        case .sessionEnded(let session, let revocation?):
            revoked.append(RevokedRow(seq: event.seq, at: event.at, uid: revocation.uid, session: session, reason: revocation.reason))
        default:
            break
        }
    }
}

// MARK: - Rows as JSON

extension AccountChangeView.ChangeRow {
    /// The `accountChanges` row of `audit --json`: `{"seq","at","uid","email","change","reason"?}`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("seq", .int(seq)), ("at", .string(at.rfc3339)), ("uid", .string(uid.uuidString)),
                                              ("email", .string(email)), ("change", .string(change.rawValue))]
        if let reason { members.append(("reason", .string(reason))) }
        return .object(JSONObject(members))
    }
}

extension AccountChangeView.RevokedRow {
    /// The `sessionsRevoked` row of `audit --json`: `{"seq","at","uid","sessionId","reason"}`.
    public var json: JSONValue {
        .object(JSONObject([("seq", .int(seq)), ("at", .string(at.rfc3339)), ("uid", .string(uid.uuidString)),
                            ("sessionId", .string(session.uuidString)), ("reason", .string(reason))]))
    }
}
