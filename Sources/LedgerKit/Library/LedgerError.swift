import LedgerDomain

// MARK: - LedgerError

/// Why a `Ledger` call failed: a stable code (the same words as the `ledger` command line's
/// `--json` errors) and a one-line message that never holds a password or token.
public struct LedgerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable {
        /// The ledger was closed before the call.
        case closed
        /// The email is held by a live account.
        case emailTaken = "email-already-in-use"
        /// A sign-in was refused (wrong email or password, or the account is locked): one answer for all.
        case signInRefused = "sign-in-refused"
        /// No such session, or it has ended.
        case noSuchSession = "no-such-session"
        /// The input was refused before anything was written (a registration's reason is in the message).
        case invalidInput = "invalid-input"
        /// A write failed and its outcome on disk is unknown: the ledger refuses writes until reopened.
        case notDurable = "not-durable"
        /// The log is damaged, or a cache disagrees with it.
        case damaged
        /// Anything else the store refused (its own code is in the message).
        case storeError = "store-error"
        /// No account has that uid or email.
        case noSuchAccount = "no-such-account"
        /// The account's registration has not written its profile yet.
        case registrationIncomplete = "registration-incomplete"
        /// `disable` of an account already disabled.
        case alreadyDisabled = "already-disabled"
        /// `enable` of an account that is not disabled.
        case notDisabled = "not-disabled"
        /// A command of a deleted account.
        case accountDeleted = "account-deleted"
        /// A command only an enabled account may run.
        case accountDisabled = "account-disabled"
        /// A verification of an email already verified.
        case alreadyVerified = "already-verified"
        /// A token that cannot be redeemed: unknown, used, replaced, expired or malformed alike.
        case tokenRefused = "token-refused"
        /// An email change to the email the account holds.
        case sameEmail = "same-email"
        /// `erase` of an account that is not deleted.
        case accountLive = "account-live"
        /// `erase` of an account already erased.
        case alreadyErased = "already-erased"
        /// `erase` on a data version 1 log (not encrypted): `ledger migrate` first.
        case migrateFirst = "migrate-first"
    }

    /// The code.
    public let code: Code
    /// A one-line message.
    public let message: String
    /// What the store or a service threw, for a caller that reports it in words of its own (the
    /// command line's exit statuses and finer codes); nil for the library's own refusals.
    public let cause: (any Error)?

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.init(code, message, cause: nil) }

    private init(_ code: Code, _ message: String, cause: (any Error)?) { self.code = code; self.message = message; self.cause = cause }

    /// Equal when the code and the message are.
    public static func == (a: LedgerError, b: LedgerError) -> Bool { a.code == b.code && a.message == b.message }

    /// The error a store or service threw, under its code: the one place the library reads them.
    init(_ error: any Error) {
        if let error = error as? LedgerError { self = error; return }
        let (code, message) = Self.read(error)
        self.init(code, message, cause: error)
    }

    /// The code and message the library gives `error`.
    private static func read(_ error: any Error) -> (Code, String) {
        switch error {
        case let error as StoreError:
            switch error.code {
            case .notDurable: return (.notDurable, error.message)
            case .damaged: return (.damaged, error.message)
            case .conditionFailed where error.condition == .emailTaken: return (.emailTaken, error.message)
            default: return (.storeError, "\(error.code.rawValue): \(error.message)")
            }
        case let error as RegistrationError:
            return (.invalidInput, error.message)
        case let refusal as AccountRefusal:
            return (Code(rawValue: refusal.code.rawValue) ?? .storeError, refusal.message)
        case let error as AuthError:
            switch error.code {
            case .signInRefused: return (.signInRefused, error.message)
            case .noAccount: return (.noSuchAccount, error.message)
            case .noSession: return (.noSuchSession, error.message)
            default: return (.storeError, "\(error.code.rawValue): \(error.message)")
            }
        default:
            return (.storeError, "\(error)")
        }
    }

    /// The message.
    public var description: String { message }
}
