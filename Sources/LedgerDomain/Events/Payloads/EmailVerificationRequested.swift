// MARK: - EmailVerificationRequested

/// A verification token was sent to the account's email; only its hash is kept.
public struct EmailVerificationRequested: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.emailVerificationRequested
    /// The account.
    public var uid: String
    /// The email the token verifies (the account's email when it was sent).
    public var email: String
    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String
    /// When the token stops being valid.
    public var expiresAt: Timestamp

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, email, tokenHash, expiresAt

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .email: MemberRule("email", .email)
            case .tokenHash: MemberRule("tokenHash", .sha256)
            case .expiresAt: MemberRule("expiresAt", .timestamp)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, email: String, tokenHash: String, expiresAt: Timestamp) {
        self.uid = uid; self.email = email; self.tokenHash = tokenHash; self.expiresAt = expiresAt
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), email: r.text(.email), tokenHash: r.text(.tokenHash), expiresAt: r.timestamp(.expiresAt))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("email", .string(email)), ("tokenHash", .string(tokenHash)),
                    ("expiresAt", .string(expiresAt.rfc3339))])
    }

    /// The account (the token is redeemed from the account's stream, not from the views).
    public var viewFact: ViewEvent.Fact { .emailVerificationRequested(uid: UUIDBits(checked: uid)) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .emailVerificationRequested(uid: slots.uuid(Member.uid, in: line) ?? .zero)
    }
}
