// MARK: - EventType

/// The event catalogue v1. Raw values are the wire names, stable forever; case names are not.
public enum EventType: String, CaseIterable, Sendable {
    /// An auth account was created (registration step 1).
    case accountCreated = "AccountCreated"
    /// A profile image was stored (registration step 2).
    case imageStored = "ImageStored"
    /// The profile document was written (registration step 3, completion).
    case profileWritten = "ProfileWritten"
    /// A registration step failed.
    case failed = "Failed"
    /// Compensation: a stored image was removed.
    case imageDeleted = "ImageDeleted"
    /// Compensation: a created account was removed.
    case accountDeleted = "AccountDeleted"
    /// A session began.
    case sessionStarted = "SessionStarted"
    /// A session ended.
    case sessionEnded = "SessionEnded"
    /// A sign-in was refused.
    case signInFailed = "SignInFailed"
    /// An operator disabled an account: it keeps its email and may not sign in.
    case accountDisabled = "AccountDisabled"
    /// An operator enabled a disabled account again.
    case accountEnabled = "AccountEnabled"
    /// A verification token was sent to an account's email.
    case emailVerificationRequested = "EmailVerificationRequested"
    /// An account's email was verified.
    case emailVerified = "EmailVerified"
    /// A password-reset token was sent to an account's email.
    case passwordResetRequested = "PasswordResetRequested"
    /// An account's password was changed or reset.
    case passwordChanged = "PasswordChanged"
    /// An account moved to a new email.
    case emailChanged = "EmailChanged"
    /// An account's personal data was erased (its data key destroyed).
    case personalDataErased = "PersonalDataErased"
    /// One day's addresses that held no account were erased (their data key destroyed).
    case addressDataErased = "AddressDataErased"
    /// A data version 1 log was migrated into this one (its first line, `ledger migrate`).
    case logMigrated = "LogMigrated"

    /// The schema version of `data` this build writes and reads.
    public var currentVersion: Int { 1 }

    /// The stream category the event belongs to first: a registration writes its events to its
    /// registration stream, a session's to its session stream, and so on.
    public var category: StreamCategory {
        switch self {
        case .sessionStarted, .sessionEnded: .session
        case .signInFailed, .addressDataErased: .signin
        case .accountDisabled, .accountEnabled, .emailVerificationRequested, .emailVerified, .passwordResetRequested,
             .passwordChanged, .emailChanged, .personalDataErased: .account
        case .logMigrated: .migration
        default: .registration
        }
    }

    /// True when an event of this type may be in a stream of `category`: its own category, and for
    /// the two deletions also the account's stream (an account's owner or an operator deletes it
    /// there, where a registration's compensation deletes it in the registration's stream).
    public func belongs(in category: StreamCategory) -> Bool {
        category == self.category || (category == .account && (self == .accountDeleted || self == .imageDeleted))
    }

    /// The payload type of `data`.
    var payloadType: any DescribedPayload.Type {
        switch self {
        case .accountCreated: AccountCreated.self
        case .imageStored: ImageStored.self
        case .profileWritten: ProfileWritten.self
        case .failed: Failed.self
        case .imageDeleted: ImageDeleted.self
        case .accountDeleted: AccountDeleted.self
        case .sessionStarted: SessionStarted.self
        case .sessionEnded: SessionEnded.self
        case .signInFailed: SignInFailed.self
        case .accountDisabled: AccountDisabled.self
        case .accountEnabled: AccountEnabled.self
        case .emailVerificationRequested: EmailVerificationRequested.self
        case .emailVerified: EmailVerified.self
        case .passwordResetRequested: PasswordResetRequested.self
        case .passwordChanged: PasswordChanged.self
        case .emailChanged: EmailChanged.self
        case .personalDataErased: PersonalDataErased.self
        case .addressDataErased: AddressDataErased.self
        case .logMigrated: LogMigrated.self
        }
    }
}

// MARK: - Streams

/// The stream categories of the log: a stream is `<category>-<lowercase uuid>`.
public enum StreamCategory: String, CaseIterable, Sendable {
    /// One stream per registration attempt.
    case registration
    /// One stream per session.
    case session
    /// One stream per refused sign-in attempt.
    case signin
    /// One stream per account, for what an operator or its owner appends after sign-up.
    case account
    /// One stream per migrated log: its `LogMigrated` line, the first of the log `ledger migrate` wrote.
    case migration

    /// The stream name for `id`.
    public func stream(_ id: String) -> String { "\(rawValue)-\(id)" }
}

/// Parses and checks stream names.
public enum StreamName {
    /// The category and id of `name`, or nil unless it is `<known category>-<lowercase uuid>`.
    public static func parse(_ name: String) -> (category: StreamCategory, id: String)? {
        var name = name
        return name.withUTF8 { bytes -> (category: StreamCategory, id: String)? in
            guard bytes.count > 37, bytes[bytes.count - 37] == UInt8(ascii: "-") else { return nil }
            let category: StreamCategory
            switch bytes.count - 37 {
            case 12 where bytes.starts(with: "registration".utf8): category = .registration
            case 7 where bytes.starts(with: "session".utf8): category = .session
            case 7 where bytes.starts(with: "account".utf8): category = .account
            case 6 where bytes.starts(with: "signin".utf8): category = .signin
            case 9 where bytes.starts(with: "migration".utf8): category = .migration
            default: return nil
            }
            let id = String(decoding: UnsafeBufferPointer(rebasing: bytes[(bytes.count - 36)...]), as: UTF8.self)
            return Identifiers.isLowercaseUUID(id) ? (category, id) : nil
        }
    }
}
