// MARK: - PasswordChanged

/// An account's password was replaced: from now on `passwordHash` is the one a sign-in checks.
public struct PasswordChanged: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.passwordChanged
    /// The account.
    public var uid: String
    /// A crypt(3) string (yescrypt `$y$...`) of the new password.
    public var passwordHash: String
    /// Why: its owner changed it, or redeemed a reset token.
    public var reason: PasswordChangeReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, passwordHash, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .passwordHash: MemberRule("passwordHash", .cryptHash)
            case .reason: MemberRule("reason", .oneOf(PasswordChangeReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, passwordHash: String, reason: PasswordChangeReason) {
        self.uid = uid; self.passwordHash = passwordHash; self.reason = reason
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), passwordHash: r.text(.passwordHash), reason: r.choice(.reason, PasswordChangeReason.self))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("passwordHash", .string(passwordHash)), ("reason", .string(reason.rawValue))])
    }

    /// The account and why (the views keep no password hash).
    public var viewFact: ViewEvent.Fact { .passwordChanged(uid: UUIDBits(checked: uid), reason: reason) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .passwordChanged(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: slots.choice(Member.reason, PasswordChangeReason.self, in: line))
    }
}
