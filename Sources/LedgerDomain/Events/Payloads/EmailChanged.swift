// MARK: - EmailChanged

/// An account moved to a new email: it holds `email` from now on, unverified, and `previousEmail`
/// is free.
public struct EmailChanged: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.emailChanged
    /// The account.
    public var uid: String
    /// The new normalized email.
    public var email: String
    /// The email it held before.
    public var previousEmail: String

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, email, previousEmail

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .email: MemberRule("email", .email)
            case .previousEmail: MemberRule("previousEmail", .email)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, email: String, previousEmail: String) {
        self.uid = uid; self.email = email; self.previousEmail = previousEmail
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), email: r.text(.email), previousEmail: r.text(.previousEmail))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("email", .string(email)), ("previousEmail", .string(previousEmail))])
    }

    /// The account and both emails.
    public var viewFact: ViewEvent.Fact {
        .emailChanged(uid: UUIDBits(checked: uid), email: email, previousEmail: previousEmail)
    }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .emailChanged(uid: slots.uuid(Member.uid, in: line) ?? .zero, email: slots.text(Member.email, in: line) ?? "",
                      previousEmail: slots.text(Member.previousEmail, in: line) ?? "")
    }
}
