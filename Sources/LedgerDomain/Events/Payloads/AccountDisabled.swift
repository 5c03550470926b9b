// MARK: - AccountDisabled

/// An operator disabled an account: it keeps its email, may not sign in, and its sessions end.
public struct AccountDisabled: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountDisabled
    /// The disabled account.
    public var uid: String
    /// The operator's words, as given (empty when none were).
    public var reason: String

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .reason: MemberRule("reason", .text)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// The longest reason an operator may give, in characters.
    public static let maxReasonLength = 500

    /// What is wrong with `reason` as an operator's reason (control characters, too long); nil when nothing.
    public static func reasonProblem(_ reason: String) -> String? {
        if reason.count > maxReasonLength { return "the reason is longer than \(maxReasonLength) characters" }
        if reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the reason must not contain control characters (a newline, a tab)"
        }
        return nil
    }

    /// A payload from its members.
    public init(uid: String, reason: String = "") { self.uid = uid; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), reason: r.text(.reason))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid)), ("reason", .string(reason))]) }

    /// The disabled account and the operator's reason.
    public var viewFact: ViewEvent.Fact { .accountDisabled(uid: UUIDBits(checked: uid), reason: reason) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountDisabled(uid: slots.uuid(Member.uid, in: line) ?? .zero, reason: slots.text(Member.reason, in: line) ?? "")
    }
}
