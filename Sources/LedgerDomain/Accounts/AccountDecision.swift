// MARK: - AccountAction

/// What an operator (or the account's owner) asks of an account after sign-up.
public enum AccountAction: Equatable, Sendable {
    /// Disable it, for the operator's `reason` (may be empty): it keeps its email, may not sign in,
    /// and every active session ends (`account-disabled`).
    case disable(reason: String)
    /// Enable a disabled account again.
    case enable
    /// End every active session (`revoked`).
    case signOutEverywhere
}

/// What the decider knows of one account: what the account fold and the sessions view say of it.
public struct AccountStanding: Equatable, Sendable {
    /// The account.
    public var uid: String
    /// Its status.
    public var status: AccountStatus
    /// Its active sessions, in the order they started.
    public var activeSessions: [String]

    /// A standing from its parts.
    public init(uid: String, status: AccountStatus, activeSessions: [String]) {
        self.uid = uid; self.status = status; self.activeSessions = activeSessions
    }
}

/// Why an account command is refused: a stable code and one line to print.
public struct AccountRefusal: Error, Equatable, Sendable {
    /// The refusal codes.
    public enum Code: String, Sendable, CaseIterable {
        /// The account's registration has not written its profile yet.
        case registrationIncomplete = "registration-incomplete"
        /// `disable` of an account that is already disabled.
        case alreadyDisabled = "already-disabled"
        /// `enable` of an account that is not disabled.
        case notDisabled = "not-disabled"
        /// Any command of a deleted account.
        case accountDeleted = "account-deleted"
    }

    /// Which refusal.
    public var code: Code
    /// One line saying why.
    public var message: String
}

// MARK: - The decider

extension AccountFold {
    /// The events `command` appends to `account`, or why it is refused: the table of what each state
    /// allows (`Docs/CLI.md`). Each event goes to its own stream: `AccountDisabled` and
    /// `AccountEnabled` to `account-<uid>`, a `SessionEnded` to its session's stream. A command with
    /// nothing to do (signing out an account without active sessions) decides no events.
    ///
    /// | status | disable | enable | sign-out-everywhere |
    /// |---|---|---|---|
    /// | pending | refused | refused | refused |
    /// | active | AccountDisabled + SessionEnded each | refused | SessionEnded each |
    /// | disabled | refused | AccountEnabled | SessionEnded each |
    /// | deleted | refused | refused | refused |
    public static func decide(_ command: AccountAction, _ account: AccountStanding) -> Result<[LedgerEvent], AccountRefusal> {
        let uid = account.uid
        func refuse(_ code: AccountRefusal.Code, _ message: String) -> Result<[LedgerEvent], AccountRefusal> {
            .failure(AccountRefusal(code: code, message: message))
        }
        func ending(_ reason: String) -> [LedgerEvent] {
            account.activeSessions.map { .sessionEnded(SessionEnded(sessionId: $0, uid: uid, reason: reason)) }
        }
        switch (account.status, command) {
        case (.deleted, _):
            return refuse(.accountDeleted, "account \(uid) is deleted")
        case (.pending, _):
            return refuse(.registrationIncomplete, "account \(uid) has not completed its registration (its profile is not written)")
        case (.active, .disable(let reason)):
            return .success([.accountDisabled(AccountDisabled(uid: uid, reason: reason))] + ending(SessionEndReason.accountDisabled))
        case (.disabled, .disable):
            return refuse(.alreadyDisabled, "account \(uid) is already disabled")
        case (.disabled, .enable):
            return .success([.accountEnabled(AccountEnabled(uid: uid))])
        case (.active, .enable):
            return refuse(.notDisabled, "account \(uid) is not disabled")
        case (.active, .signOutEverywhere), (.disabled, .signOutEverywhere):
            return .success(ending(SessionEndReason.revoked))
        }
    }
}

/// The `reason` of a `SessionEnded` that an account command appends.
public enum SessionEndReason {
    /// The account was disabled.
    public static let accountDisabled = "account-disabled"
    /// Its owner or an operator signed the account out everywhere.
    public static let revoked = "revoked"

    /// The reasons of a session ended by something other than its owner's sign-out, which the audit lists.
    public static let revocations = [revoked, accountDisabled]

    /// True when `reason` is one of `revocations`.
    public static func isRevocation(_ reason: String) -> Bool { revocations.contains(reason) }

    /// True when the UTF-8 bytes `reason` spell one of `revocations`.
    static func isRevocation(bytes reason: UnsafeBufferPointer<UInt8>) -> Bool {
        revocations.contains { $0.utf8.elementsEqual(reason) }
    }
}
