// MARK: - Failed

/// A registration step failed; compensations follow when something was created.
public struct Failed: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.failed
    /// The step that failed.
    public var step: RegistrationStep
    /// A stable kebab-case code (`invalid-email`, `email-already-in-use`, `interrupted`, ...).
    public var reason: String
    /// A human message.
    public var message: String
    /// The email, when one was given.
    public var email: String?
    /// The account, when one existed.
    public var uid: String?

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case step, reason, message, email, uid

        var rule: MemberRule {
            switch self {
            case .step: MemberRule("step", .oneOf(RegistrationStep.self))
            case .reason: MemberRule("reason", .code)
            case .message: MemberRule("message", .text)
            case .email: MemberRule("email", .text, .optional)
            case .uid: MemberRule("uid", .uuid, .optional)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(step: RegistrationStep, reason: String, message: String, email: String? = nil, uid: String? = nil) {
        self.step = step; self.reason = reason; self.message = message; self.email = email; self.uid = uid
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(step: r.choice(.step, RegistrationStep.self), reason: r.text(.reason), message: r.text(.message),
                  email: r.optionalText(.email), uid: r.optionalText(.uid))
    }

    /// The members in log order; absent optionals are omitted.
    public var data: JSONObject {
        var object = JSONObject([("step", .string(step.rawValue)), ("reason", .string(reason)), ("message", .string(message))])
        if let email { object["email"] = .string(email) }
        if let uid { object["uid"] = .string(uid) }
        return object
    }

    /// The whole failure (rare: kept as it is).
    public var viewFact: ViewEvent.Fact { .failed(self) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .failed(Failed(step: slots.choice(Member.step, RegistrationStep.self, in: line), reason: slots.text(Member.reason, in: line) ?? "",
                       message: slots.text(Member.message, in: line) ?? "", email: slots.text(Member.email, in: line),
                       uid: slots.text(Member.uid, in: line)))
    }
}
