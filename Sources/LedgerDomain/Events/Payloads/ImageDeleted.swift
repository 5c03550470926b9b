// MARK: - ImageDeleted

/// A stored image's blob was removed: a compensation, or its account was deleted.
public struct ImageDeleted: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.imageDeleted
    /// The owner.
    public var uid: String
    /// The removed blob.
    public var imageName: String
    /// Why (`compensation`, or `account-deleted`).
    public var reason: ImageDeletedReason

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, imageName, reason

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .imageName: MemberRule("imageName", .uuid)
            case .reason: MemberRule("reason", .oneOf(ImageDeletedReason.self))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, imageName: String, reason: ImageDeletedReason = .compensation) {
        self.uid = uid; self.imageName = imageName; self.reason = reason
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), imageName: r.text(.imageName), reason: r.choice(.reason, ImageDeletedReason.self))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("imageName", .string(imageName)), ("reason", .string(reason.rawValue))])
    }

    /// The removed image.
    public var viewFact: ViewEvent.Fact { .imageDeleted(image: UUIDBits(checked: imageName)) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .imageDeleted(image: slots.uuid(Member.imageName, in: line) ?? .zero)
    }
}
