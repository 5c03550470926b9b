// MARK: - SessionEnded

/// A session ended (`logout`, `account-deleted`, ...).
public struct SessionEnded: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.sessionEnded
    /// The session.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// A kebab-case reason.
    public var reason: String

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case sessionId, uid, reason

        var rule: MemberRule {
            switch self {
            case .sessionId: MemberRule("sessionId", .uuid)
            case .uid: MemberRule("uid", .uuid)
            case .reason: MemberRule("reason", .code)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(sessionId: String, uid: String, reason: String) {
        self.sessionId = sessionId; self.uid = uid; self.reason = reason
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(sessionId: r.text(.sessionId), uid: r.text(.uid), reason: r.text(.reason))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("sessionId", .string(sessionId)), ("uid", .string(uid)), ("reason", .string(reason))])
    }

    /// The ended session.
    public var viewFact: ViewEvent.Fact { .sessionEnded(session: UUIDBits(checked: sessionId)) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .sessionEnded(session: slots.uuid(Member.sessionId, in: line) ?? .zero)
    }
}
