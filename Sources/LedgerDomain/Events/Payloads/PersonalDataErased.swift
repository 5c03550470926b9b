// MARK: - PersonalDataErased

/// An account's personal data was erased: the data key of its subject (`account-<uid>`) is
/// destroyed, so every personal member ever written under it (its emails, username, password hashes,
/// an operator's reasons about it) reads as erased from now on, in every copy of the log. The event
/// itself holds no personal data: the account's id, its subject and why.
public struct PersonalDataErased: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.personalDataErased
    /// The account whose data was erased.
    public var uid: String
    /// Why.
    public var reason: ErasureReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, subject, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .subject: MemberRule("subject", .prefixed("account-", member: Member.uid.rawValue))
            case .reason: MemberRule("reason", .oneOf(ErasureReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, reason: ErasureReason) { self.uid = uid; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), reason: r.choice(.reason, ErasureReason.self))
    }

    /// The subject whose key was destroyed.
    public var subject: SubjectID { .account(UUIDBits(checked: uid)) }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("subject", .string(subject.text)), ("reason", .string(reason.rawValue))])
    }

    /// The erased account.
    public var viewFact: ViewEvent.Fact { .personalDataErased(uid: UUIDBits(checked: uid), reason: reason) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .personalDataErased(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: slots.choice(Member.reason, ErasureReason.self, in: line))
    }
}

/// Why an account's personal data was erased.
public enum ErasureReason: String, MemberChoice {
    /// Its deletion erased it (`account delete`).
    case accountDeleted = "account-deleted"
    /// An operator erased an account deleted earlier (`account erase`), or an address (`erase --email`).
    case `operator`
    /// The retention period ran out (`erase --expired`).
    case retention
}
