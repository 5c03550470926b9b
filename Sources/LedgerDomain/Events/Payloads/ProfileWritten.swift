// MARK: - ProfileWritten

/// The profile document was written: the registration is complete.
public struct ProfileWritten: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.profileWritten
    /// The user.
    public var uid: String
    /// The normalized email.
    public var email: String
    /// The display name.
    public var userName: String
    /// The profile image, or nil for the default image.
    public var profileImageName: String?
    /// When the profile was created.
    public var createdAt: Timestamp

    /// The members of `data`; `profileImageName` must be present (null allowed).
    enum Member: Int, PayloadMember {
        case profileImageName, uid, email, userName, createdAt

        var rule: MemberRule {
            switch self {
            case .profileImageName: MemberRule("profileImageName", .uuid, .nullable)
            case .uid: MemberRule("uid", .uuid)
            case .email: MemberRule("email", .email)
            case .userName: MemberRule("userName", .nonEmptyText)
            case .createdAt: MemberRule("createdAt", .timestamp)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, email: String, userName: String, profileImageName: String?, createdAt: Timestamp) {
        self.uid = uid; self.email = email; self.userName = userName
        self.profileImageName = profileImageName; self.createdAt = createdAt
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), email: r.text(.email), userName: r.text(.userName),
                  profileImageName: r.optionalText(.profileImageName), createdAt: r.timestamp(.createdAt))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("email", .string(email)), ("userName", .string(userName)),
                    ("profileImageName", profileImageName.map(JSONValue.string) ?? .null),
                    ("createdAt", .string(createdAt.rfc3339))])
    }

    /// The profile as the users view shows it (the email is the account's).
    public var viewFact: ViewEvent.Fact {
        .profileWritten(uid: UUIDBits(checked: uid), userName: userName, profileImage: profileImageName.map(UUIDBits.init(checked:)),
                        createdAt: createdAt)
    }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .profileWritten(uid: slots.uuid(Member.uid, in: line) ?? .zero, userName: slots.text(Member.userName, in: line) ?? "",
                        profileImage: slots.uuid(Member.profileImageName, in: line), createdAt: slots.timestamp(Member.createdAt, in: line))
    }
}
