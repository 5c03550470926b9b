// MARK: - AddressDataErased

/// The personal data of one day's addresses that held no account was erased: the data key of the
/// subject `address-<YYYY-MM-DD>` (or one of its successors `.N`) is destroyed, so the sign-in
/// failures and rejected registrations it encrypted read as erased from now on. Written by
/// `ledger erase --email` (for every day that holds the address) and `ledger erase --expired`, in a
/// `signin-<uuid>` stream of its own. It holds no personal data: the subject and why.
public struct AddressDataErased: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.addressDataErased
    /// The erased subject (`address-<YYYY-MM-DD>[.N]`).
    public var subject: String
    /// Why (`operator`: `erase --email`; `retention`: `erase --expired`).
    public var reason: ErasureReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case subject, reason

        var rule: MemberRule {
            switch self {
            case .subject: MemberRule("subject", .addressSubject)
            case .reason: MemberRule("reason", .oneOf(ErasureReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(subject: SubjectID, reason: ErasureReason) { self.subject = subject.text; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(subject: SubjectID(r.text(.subject)) ?? .address(on: Timestamp(millis: 0)), reason: r.choice(.reason, ErasureReason.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("subject", .string(subject)), ("reason", .string(reason.rawValue))]) }

    /// The erased subject.
    public var viewFact: ViewEvent.Fact { .addressDataErased(subject: SubjectID(subject) ?? .address(on: Timestamp(millis: 0))) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .addressDataErased(subject: slots.text(Member.subject, in: line).flatMap(SubjectID.init) ?? .address(on: Timestamp(millis: 0)))
    }
}
