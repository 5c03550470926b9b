// MARK: - AccountDeleted

/// Compensation: a created account was removed; its email is free again.
public struct AccountDeleted: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountDeleted
    /// The removed account.
    public var uid: String
    /// Why (`compensation`).
    public var reason: CompensationReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .reason: MemberRule("reason", .oneOf(CompensationReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, reason: CompensationReason = .compensation) { self.uid = uid; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), reason: r.choice(.reason, CompensationReason.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid)), ("reason", .string(reason.rawValue))]) }

    /// The removed account.
    public var viewFact: ViewEvent.Fact { .accountDeleted(uid: UUIDBits(checked: uid)) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountDeleted(uid: slots.uuid(Member.uid, in: line) ?? .zero)
    }
}
