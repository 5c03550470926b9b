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

    /// The ended session, and for a revocation its account and reason.
    public var viewFact: ViewEvent.Fact {
        .sessionEnded(session: UUIDBits(checked: sessionId),
                      revocation: SessionEndReason.isRevocation(reason) ? ViewEvent.Revocation(uid: UUIDBits(checked: uid), reason: reason) : nil)
    }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        let session = slots.uuid(Member.sessionId, in: line) ?? .zero
        // A logout (nearly every end) is told apart by its bytes, with no string made.
        guard slots.withText(Member.reason.rawValue, in: line, { SessionEndReason.isRevocation(bytes: $0) }) == true,
              let reason = slots.text(Member.reason, in: line) else { return .sessionEnded(session: session) }
        return .sessionEnded(session: session, revocation: ViewEvent.Revocation(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: reason))
    }
}
