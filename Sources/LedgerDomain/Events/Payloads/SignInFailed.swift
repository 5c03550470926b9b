// MARK: - SignInFailed

/// A sign-in was refused; the log keeps the true reason.
public struct SignInFailed: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.signInFailed
    /// The normalized email that was tried.
    public var email: String
    /// The true reason.
    public var reason: SignInFailure

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case email, reason

        var rule: MemberRule {
            switch self {
            case .email: MemberRule("email", .text)
            case .reason: MemberRule("reason", .oneOf(SignInFailure.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(email: String, reason: SignInFailure) { self.email = email; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(email: r.text(.email), reason: r.choice(.reason, SignInFailure.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("email", .string(email)), ("reason", .string(reason.rawValue))]) }

    /// The email tried and the true reason.
    public var viewFact: ViewEvent.Fact { .signInFailed(email: email, reason: reason) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .signInFailed(email: slots.text(Member.email, in: line) ?? "", reason: slots.choice(Member.reason, SignInFailure.self, in: line))
    }
}
