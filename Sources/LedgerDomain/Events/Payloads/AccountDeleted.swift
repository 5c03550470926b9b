// MARK: - AccountDeleted

/// An account was deleted (a compensation, its owner or an operator); its email is free again.
public struct AccountDeleted: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountDeleted
    /// The removed account.
    public var uid: String
    /// Why (`compensation`, `user-request` or `operator`).
    public var reason: AccountDeletedReason
    /// True when the operator kept its personal data (a legal hold: `--keep-personal-data`);
    /// written only when true.
    public var keepPersonalData: Bool

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, reason, keepPersonalData

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .reason: MemberRule("reason", .oneOf(AccountDeletedReason.self))
            case .keepPersonalData: MemberRule("keepPersonalData", .flag, .optionalOrNull)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, reason: AccountDeletedReason = .compensation, keepPersonalData: Bool = false) {
        self.uid = uid; self.reason = reason; self.keepPersonalData = keepPersonalData
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), reason: r.choice(.reason, AccountDeletedReason.self), keepPersonalData: r.flag(.keepPersonalData) ?? false)
    }

    /// The members in log order.
    public var data: JSONObject {
        var object = JSONObject([("uid", .string(uid)), ("reason", .string(reason.rawValue))])
        if keepPersonalData { object["keepPersonalData"] = .bool(true) }
        return object
    }

    /// The removed account and why.
    public var viewFact: ViewEvent.Fact { .accountDeleted(uid: UUIDBits(checked: uid), reason: reason, keepsPersonalData: keepPersonalData) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountDeleted(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: slots.choice(Member.reason, AccountDeletedReason.self, in: line),
                        keepsPersonalData: slots.flag(Member.keepPersonalData) ?? false)
    }
}
