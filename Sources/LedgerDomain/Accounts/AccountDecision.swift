// MARK: - AccountAction

/// What an operator (or the account's owner) asks of an account after sign-up. Secrets arrive
/// already hashed (a password's crypt string, a token's SHA-256): the decider never sees one in clear.
public enum AccountAction: Equatable, Sendable {
    /// Disable it, for the operator's `reason` (may be empty): it keeps its email, may not sign in,
    /// and every active session ends (`account-disabled`).
    case disable(reason: String)
    /// Enable a disabled account again.
    case enable
    /// End every active session (`revoked`).
    case signOutEverywhere
    /// Send a verification token (its hash, and when it expires) to the account's email.
    case requestVerification(tokenHash: String, expiresAt: Timestamp)
    /// Mark the account's email verified (its verification token was redeemed).
    case verifyEmail
    /// Replace the password (the current one was checked) with `passwordHash`; every session ends.
    case changePassword(passwordHash: String)
    /// Send a reset token (its hash, and when it expires) to the account's email.
    case requestReset(tokenHash: String, expiresAt: Timestamp)
    /// Replace the password with `passwordHash` (a reset token was redeemed); every session ends and the lockout with them.
    case resetPassword(passwordHash: String)
    /// Move the account to the normalized email `newEmail` (the password was checked).
    case changeEmail(newEmail: String)
    /// Delete the account: its profile image, its sessions, then the account, for `reason`
    /// (`user-request` or `operator`); and its personal data, erased in the same append, unless
    /// `keepPersonalData` (a legal hold, recorded on `AccountDeleted`) or the log is data version 1.
    case delete(reason: AccountDeletedReason, keepPersonalData: Bool = false)
    /// Erase the personal data of an account deleted earlier (its key is destroyed).
    case erase
}

/// What the decider knows of one account: what the account fold and the views say of it.
public struct AccountStanding: Equatable, Sendable {
    /// The account.
    public var uid: String
    /// Its status.
    public var status: AccountStatus
    /// Its active sessions, in the order they started.
    public var activeSessions: [String]
    /// The email it holds.
    public var email: String
    /// True when that email is verified.
    public var emailVerified: Bool
    /// Its profile image's name, when it has one.
    public var profileImage: String?
    /// True when its personal data is encrypted under its own key (a data version 2 log), so it can be erased.
    public var sealed = false
    /// True when its personal data reads as erased (its key is gone).
    public var erased: Bool { sealed && email.isEmpty }

    /// A standing from its parts.
    public init(uid: String, status: AccountStatus, activeSessions: [String], email: String = "", emailVerified: Bool = false,
                profileImage: String? = nil) {
        self.uid = uid; self.status = status; self.activeSessions = activeSessions
        self.email = email; self.emailVerified = emailVerified; self.profileImage = profileImage
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
        /// A command only an enabled account may run (change or reset a password, change or verify an email).
        case accountDisabled = "account-disabled"
        /// `send-verification` of an email that is already verified.
        case alreadyVerified = "already-verified"
        /// `verify-email` or `reset-password` with a token that cannot be redeemed: unknown, used,
        /// replaced by a newer one, expired or malformed alike.
        case tokenRefused = "token-refused"
        /// `change-email` to the email the account already holds.
        case sameEmail = "same-email"
        /// `change-email` to an email a live account holds (the store's append condition decides it).
        case emailTaken = "email-already-in-use"
        /// `erase` of an account that is not deleted.
        case accountLive = "account-live"
        /// `erase` of an account whose data is already erased.
        case alreadyErased = "already-erased"
        /// `erase` on a data version 1 log, whose personal data is not encrypted: `ledger migrate` first.
        case migrateFirst = "migrate-first"
    }

    /// Which refusal.
    public var code: Code
    /// One line saying why.
    public var message: String

    /// A refusal from its parts.
    public init(code: Code, message: String) { self.code = code; self.message = message }
}

// MARK: - The decider

extension AccountFold {
    /// The events `command` appends to `account`, or why it is refused: the table of what each state
    /// allows (`Docs/CLI.md`). A `SessionEnded` goes to its session's stream, every other event to
    /// `account-<uid>`. A command with nothing to do (signing out an account without active
    /// sessions) decides no events.
    ///
    /// | status | disable | enable | sign-out-everywhere | delete | the owner's commands |
    /// |---|---|---|---|---|---|
    /// | pending | refused | refused | refused | refused | refused |
    /// | active | AccountDisabled + SessionEnded each | refused | SessionEnded each | ImageDeleted?, SessionEnded each, AccountDeleted | allowed |
    /// | disabled | refused | AccountEnabled | SessionEnded each | as active | refused (`account-disabled`) |
    /// | deleted | refused | refused | refused | refused | refused |
    ///
    /// `erase` is the one command of a deleted account (refused `account-live` for any other status,
    /// `already-erased`, and `migrate-first` on a data version 1 log). `delete` on a data version 2
    /// log erases in the same append, unless the operator keeps the personal data (a legal hold).
    ///
    /// The owner's commands: send-verification (refused `already-verified` when it is), verify-email,
    /// change-password, request-reset, reset-password, change-email (refused `same-email` to its own).
    public static func decide(_ command: AccountAction, _ account: AccountStanding) -> Result<[LedgerEvent], AccountRefusal> {
        let uid = account.uid
        func refuse(_ code: AccountRefusal.Code, _ message: String) -> Result<[LedgerEvent], AccountRefusal> {
            .failure(AccountRefusal(code: code, message: message))
        }
        func ending(_ reason: String) -> [LedgerEvent] {
            account.activeSessions.map { .sessionEnded(SessionEnded(sessionId: $0, uid: uid, reason: reason)) }
        }
        if case .erase = command {
            guard account.status == .deleted else { return refuse(.accountLive, "account \(uid) is not deleted: delete it first (`ledger account delete`)") }
            guard account.sealed else {
                return refuse(.migrateFirst, "the log is data version 1: its personal data is not encrypted and can be erased only after `ledger migrate`")
            }
            guard !account.erased else { return refuse(.alreadyErased, "the personal data of account \(uid) is already erased") }
            return .success([.personalDataErased(PersonalDataErased(uid: uid, reason: .operator))])
        }
        switch account.status {
        case .deleted: return refuse(.accountDeleted, "account \(uid) is deleted")
        case .pending: return refuse(.registrationIncomplete, "account \(uid) has not completed its registration (its profile is not written)")
        case .active, .disabled: break
        }
        let disabled = account.status == .disabled
        switch command {
        case .disable(let reason):
            if disabled { return refuse(.alreadyDisabled, "account \(uid) is already disabled") }
            return .success([.accountDisabled(AccountDisabled(uid: uid, reason: reason))] + ending(SessionEndReason.accountDisabled))
        case .enable:
            if !disabled { return refuse(.notDisabled, "account \(uid) is not disabled") }
            return .success([.accountEnabled(AccountEnabled(uid: uid))])
        case .signOutEverywhere:
            return .success(ending(SessionEndReason.revoked))
        case .delete(let reason, let keep):
            let image = account.profileImage.map { [LedgerEvent.imageDeleted(ImageDeleted(uid: uid, imageName: $0, reason: .accountDeleted))] } ?? []
            let erasure = account.sealed && !keep ? [LedgerEvent.personalDataErased(PersonalDataErased(uid: uid, reason: .accountDeleted))] : []
            return .success(image + ending(SessionEndReason.accountDeleted)
                            + [.accountDeleted(AccountDeleted(uid: uid, reason: reason, keepPersonalData: keep))] + erasure)
        default:
            break
        }
        if disabled { return refuse(.accountDisabled, "account \(uid) is disabled") }
        switch command {
        case .requestVerification(let tokenHash, let expiresAt):
            if account.emailVerified { return refuse(.alreadyVerified, "the email of account \(uid) is already verified") }
            return .success([.emailVerificationRequested(EmailVerificationRequested(uid: uid, email: account.email, tokenHash: tokenHash,
                                                                                    expiresAt: expiresAt))])
        case .verifyEmail:
            return .success([.emailVerified(EmailVerified(uid: uid, email: account.email))])
        case .changePassword(let hash):
            return .success([.passwordChanged(PasswordChanged(uid: uid, passwordHash: hash, reason: .change))] + ending(SessionEndReason.passwordChanged))
        case .requestReset(let tokenHash, let expiresAt):
            return .success([.passwordResetRequested(PasswordResetRequested(uid: uid, tokenHash: tokenHash, expiresAt: expiresAt))])
        case .resetPassword(let hash):
            return .success([.passwordChanged(PasswordChanged(uid: uid, passwordHash: hash, reason: .reset))] + ending(SessionEndReason.passwordChanged))
        case .changeEmail(let newEmail):
            if newEmail == account.email { return refuse(.sameEmail, "account \(uid) already has the email \(newEmail)") }
            return .success([.emailChanged(EmailChanged(uid: uid, email: newEmail, previousEmail: account.email))])
        case .disable, .enable, .signOutEverywhere, .delete, .erase:
            return .success([])  // decided above
        }
    }
}

/// The `reason` of a `SessionEnded` that an account command appends.
public enum SessionEndReason {
    /// The account was disabled.
    public static let accountDisabled = "account-disabled"
    /// Its owner or an operator signed the account out everywhere.
    public static let revoked = "revoked"
    /// The password was changed or reset.
    public static let passwordChanged = "password-changed"
    /// The account was deleted.
    public static let accountDeleted = "account-deleted"

    /// The reasons of a session ended by something other than its owner's sign-out, which the audit lists.
    public static let revocations = [revoked, accountDisabled, passwordChanged, accountDeleted]

    /// True when `reason` is one of `revocations`.
    public static func isRevocation(_ reason: String) -> Bool { revocations.contains(reason) }

    /// True when the UTF-8 bytes `reason` spell one of `revocations`.
    static func isRevocation(bytes reason: UnsafeBufferPointer<UInt8>) -> Bool {
        revocations.contains { $0.utf8.elementsEqual(reason) }
    }
}
