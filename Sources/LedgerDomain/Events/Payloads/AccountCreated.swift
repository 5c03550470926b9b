// MARK: - AccountCreated

/// An auth account was created with a hashed password.
public struct AccountCreated: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountCreated
    /// The new user's id.
    public var uid: String
    /// The normalized (lowercase) email.
    public var email: String
    /// A crypt(3) string (yescrypt `$y$...`).
    public var passwordHash: String
    /// Optional extra member: true when the registration plans an image step (lets recovery name the next step).
    public var withImage: Bool?

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case uid, email, passwordHash, withImage

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .email: MemberRule("email", .email)
            case .passwordHash: MemberRule("passwordHash", .cryptHash)
            case .withImage: MemberRule("withImage", .flag, .optionalOrNull)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(uid: String, email: String, passwordHash: String, withImage: Bool? = nil) {
        self.uid = uid; self.email = email; self.passwordHash = passwordHash; self.withImage = withImage
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema, type: Self.eventType)
        self.init(uid: r.text(.uid), email: r.text(.email), passwordHash: r.text(.passwordHash), withImage: r.flag(.withImage))
    }

    /// The members in log order; `withImage` only when set.
    public var data: JSONObject {
        var object = JSONObject([("uid", .string(uid)), ("email", .string(email)), ("passwordHash", .string(passwordHash))])
        if let withImage { object["withImage"] = .bool(withImage) }
        return object
    }

    /// The account, its email and its image plan (no password hash: no view keeps it).
    public var viewFact: ViewEvent.Fact { .accountCreated(uid: UUIDBits(checked: uid), email: email, withImage: withImage) }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .accountCreated(uid: slots.uuid(Member.uid, in: line) ?? .zero, email: slots.text(Member.email, in: line) ?? "",
                        withImage: slots.flag(Member.withImage))
    }
}
