// MARK: - EventPayload

/// The typed `data` of one event type: decoded from and encoded to its JSON object.
public protocol EventPayload: Equatable, Sendable {
    /// The catalogue entry this payload belongs to.
    static var eventType: EventType { get }
    /// Decodes `data`, throwing on a missing or ill-typed required member. Extra members are ignored.
    init(data: JSONObject) throws(EventDataError)
    /// The members written to the log, in a fixed order.
    var data: JSONObject { get }
    /// The members the views keep.
    var viewFact: ViewEvent.Fact { get }
}

/// A payload whose members are declared once (`Member`, each with its `MemberRule`): the full
/// decoder (`init(data:)` through `DataReader`) and the in-place reader (`MemberSlots`) check them
/// by the same rules.
protocol DescribedPayload: EventPayload {
    /// The members, numbered in the order they are checked.
    associatedtype Member: PayloadMember
    /// The rules of `Member`'s cases.
    static var schema: PayloadSchema<Member> { get }
    /// What the views keep, read from members that `MemberSlots.satisfies` accepted.
    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact
}

extension DescribedPayload {
    /// The schema's rules (for callers that hold the type as an existential).
    static var memberRules: [MemberRule] { schema.rules }
}

// MARK: - Enumerations used in payloads

/// The registration step a `Failed` event names.
public enum RegistrationStep: String, MemberChoice {
    /// Input checks before any write.
    case validation
    /// Creating the auth account.
    case account
    /// Storing the profile image.
    case image
    /// Writing the profile document.
    case profile
    /// Starting the first session after sign-up.
    case session
}

/// The image formats accepted, by magic bytes.
public enum ImageContentType: String, MemberChoice {
    /// JPEG (`FF D8 FF`).
    case jpeg = "image/jpeg"
    /// PNG (`89 50 4E 47 0D 0A 1A 0A`).
    case png = "image/png"
}

/// Why a sign-in was refused (the log keeps the true reason; the user sees one message).
public enum SignInFailure: String, MemberChoice {
    /// No live account has that email.
    case unknownEmail = "unknown-email"
    /// The password did not match.
    case wrongPassword = "wrong-password"
    /// Too many recent failures.
    case locked
    /// The account is disabled (its password is not checked).
    case disabled
}

/// Why an account was deleted.
public enum AccountDeletedReason: String, MemberChoice {
    /// Undoing a failed registration (in its registration stream).
    case compensation
    /// Its owner deleted it, giving its password (in its account stream).
    case userRequest = "user-request"
    /// An operator deleted it (in its account stream).
    case `operator`

    /// True for a deletion of an account's life (its owner's or an operator's), not a compensation.
    public var isLifecycle: Bool { self != .compensation }
}

/// Why a stored image was removed.
public enum ImageDeletedReason: String, MemberChoice {
    /// Undoing a failed registration (in its registration stream).
    case compensation
    /// Its account was deleted (in its account stream).
    case accountDeleted = "account-deleted"
}

/// Why a password was changed.
public enum PasswordChangeReason: String, MemberChoice {
    /// Its owner changed it, giving the current one.
    case change
    /// Its owner redeemed a reset token.
    case reset
}
