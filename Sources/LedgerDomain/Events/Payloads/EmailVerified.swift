// MARK: - EmailVerified

/// The account's owner proved they read mail at `email` (a verification token was redeemed).
public struct EmailVerified: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.emailVerified
    /// The account.
    public var uid: String
    /// The email verified.
    public var email: String

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, email

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .email: MemberRule("email", .email)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, email: String) { self.uid = uid; self.email = email }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), email: r.text(.email))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid)), ("email", .string(email))]) }

    /// The account and the email verified.
    public var viewFact: ViewEvent.Fact { .emailVerified(uid: UUIDBits(checked: uid), email: email) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .emailVerified(uid: slots.uuid(Member.uid, in: line) ?? .zero, email: slots.text(Member.email, in: line) ?? "")
    }
}
