// MARK: - AccountDeleted

/// An account was deleted (a compensation, its owner or an operator); its email is free again.
public struct AccountDeleted: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountDeleted
    /// The removed account.
    public var uid: String
    /// Why (`compensation`, `user-request` or `operator`).
    public var reason: AccountDeletedReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .reason: MemberRule("reason", .oneOf(AccountDeletedReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, reason: AccountDeletedReason = .compensation) { self.uid = uid; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), reason: r.choice(.reason, AccountDeletedReason.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid)), ("reason", .string(reason.rawValue))]) }

    /// The removed account and why.
    public var viewFact: ViewEvent.Fact { .accountDeleted(uid: UUIDBits(checked: uid), reason: reason) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountDeleted(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: slots.choice(Member.reason, AccountDeletedReason.self, in: line))
    }
}
