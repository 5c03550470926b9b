// MARK: - AccountEnabled

/// An operator enabled a disabled account again: it may sign in.
public struct AccountEnabled: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountEnabled
    /// The enabled account.
    public var uid: String

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String) { self.uid = uid }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid))]) }

    /// The enabled account.
    public var viewFact: ViewEvent.Fact { .accountEnabled(uid: UUIDBits(checked: uid)) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountEnabled(uid: slots.uuid(Member.uid, in: line) ?? .zero)
    }
}
