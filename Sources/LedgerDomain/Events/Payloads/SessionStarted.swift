// MARK: - SessionStarted

/// A user signed in; only the token's hash is kept.
public struct SessionStarted: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.sessionStarted
    /// The session.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String
    /// When the session stops being valid.
    public var expiresAt: Timestamp

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case sessionId, uid, tokenHash, expiresAt

        var rule: MemberRule {
            switch self {
            case .sessionId: MemberRule("sessionId", .uuid)
            case .uid: MemberRule("uid", .uuid)
            case .tokenHash: MemberRule("tokenHash", .sha256)
            case .expiresAt: MemberRule("expiresAt", .timestamp)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(sessionId: String, uid: String, tokenHash: String, expiresAt: Timestamp) {
        self.sessionId = sessionId; self.uid = uid; self.tokenHash = tokenHash; self.expiresAt = expiresAt
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(sessionId: r.text(.sessionId), uid: r.text(.uid), tokenHash: r.text(.tokenHash), expiresAt: r.timestamp(.expiresAt))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("sessionId", .string(sessionId)), ("uid", .string(uid)), ("tokenHash", .string(tokenHash)),
                    ("expiresAt", .string(expiresAt.rfc3339))])
    }

    /// The session, its user and its end (the token hash is checked, not kept: no view shows or uses it).
    public var viewFact: ViewEvent.Fact {
        .sessionStarted(session: UUIDBits(checked: sessionId), uid: UUIDBits(checked: uid), expiresAt: expiresAt)
    }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .sessionStarted(session: slots.uuid(Member.sessionId, in: line) ?? .zero, uid: slots.uuid(Member.uid, in: line) ?? .zero,
                        expiresAt: slots.timestamp(Member.expiresAt, in: line))
    }
}
