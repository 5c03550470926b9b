// MARK: - LedgerEvent

/// Any event of the catalogue, typed.
public enum LedgerEvent: Equatable, Sendable {
    /// See `AccountCreated`.
    case accountCreated(AccountCreated)
    /// See `ImageStored`.
    case imageStored(ImageStored)
    /// See `ProfileWritten`.
    case profileWritten(ProfileWritten)
    /// See `Failed`.
    case failed(Failed)
    /// See `ImageDeleted`.
    case imageDeleted(ImageDeleted)
    /// See `AccountDeleted`.
    case accountDeleted(AccountDeleted)
    /// See `SessionStarted`.
    case sessionStarted(SessionStarted)
    /// See `SessionEnded`.
    case sessionEnded(SessionEnded)
    /// See `SignInFailed`.
    case signInFailed(SignInFailed)
    /// See `AccountDisabled`.
    case accountDisabled(AccountDisabled)
    /// See `AccountEnabled`.
    case accountEnabled(AccountEnabled)
    /// See `EmailVerificationRequested`.
    case emailVerificationRequested(EmailVerificationRequested)
    /// See `EmailVerified`.
    case emailVerified(EmailVerified)
    /// See `PasswordResetRequested`.
    case passwordResetRequested(PasswordResetRequested)
    /// See `PasswordChanged`.
    case passwordChanged(PasswordChanged)
    /// See `EmailChanged`.
    case emailChanged(EmailChanged)
    /// See `PersonalDataErased`.
    case personalDataErased(PersonalDataErased)
    /// See `AddressDataErased`.
    case addressDataErased(AddressDataErased)
    /// See `LogMigrated`.
    case logMigrated(LogMigrated)

    /// The payload as its protocol.
    public var payload: any EventPayload {
        switch self {
        case .accountCreated(let p): p
        case .imageStored(let p): p
        case .profileWritten(let p): p
        case .failed(let p): p
        case .imageDeleted(let p): p
        case .accountDeleted(let p): p
        case .sessionStarted(let p): p
        case .sessionEnded(let p): p
        case .signInFailed(let p): p
        case .accountDisabled(let p): p
        case .accountEnabled(let p): p
        case .emailVerificationRequested(let p): p
        case .emailVerified(let p): p
        case .passwordResetRequested(let p): p
        case .passwordChanged(let p): p
        case .emailChanged(let p): p
        case .personalDataErased(let p): p
        case .addressDataErased(let p): p
        case .logMigrated(let p): p
        }
    }

    /// The catalogue entry.
    public var type: EventType { Swift.type(of: payload).eventType }

    /// The `data` object written to the log.
    public var data: JSONObject { payload.data }

    /// Decodes `data` of catalogue type `type`.
    public static func decode(type: EventType, data: JSONObject) throws(EventDataError) -> LedgerEvent {
        switch type {
        case .accountCreated: .accountCreated(try AccountCreated(data: data))
        case .imageStored: .imageStored(try ImageStored(data: data))
        case .profileWritten: .profileWritten(try ProfileWritten(data: data))
        case .failed: .failed(try Failed(data: data))
        case .imageDeleted: .imageDeleted(try ImageDeleted(data: data))
        case .accountDeleted: .accountDeleted(try AccountDeleted(data: data))
        case .sessionStarted: .sessionStarted(try SessionStarted(data: data))
        case .sessionEnded: .sessionEnded(try SessionEnded(data: data))
        case .signInFailed: .signInFailed(try SignInFailed(data: data))
        case .accountDisabled: .accountDisabled(try AccountDisabled(data: data))
        case .accountEnabled: .accountEnabled(try AccountEnabled(data: data))
        case .emailVerificationRequested: .emailVerificationRequested(try EmailVerificationRequested(data: data))
        case .emailVerified: .emailVerified(try EmailVerified(data: data))
        case .passwordResetRequested: .passwordResetRequested(try PasswordResetRequested(data: data))
        case .passwordChanged: .passwordChanged(try PasswordChanged(data: data))
        case .emailChanged: .emailChanged(try EmailChanged(data: data))
        case .personalDataErased: .personalDataErased(try PersonalDataErased(data: data))
        case .addressDataErased: .addressDataErased(try AddressDataErased(data: data))
        case .logMigrated: .logMigrated(try LogMigrated(data: data))
        }
    }
}
