// MARK: - AccountCreated

/// An auth account was created with a hashed password.
public struct AccountCreated: EventPayload {
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

    /// A payload from its members.
    public init(uid: String, email: String, passwordHash: String, withImage: Bool? = nil) {
        self.uid = uid; self.email = email; self.passwordHash = passwordHash; self.withImage = withImage
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(uid: try r.uuid("uid"), email: try r.email("email"), passwordHash: try r.cryptHash("passwordHash"),
                  withImage: try r.optionalBool("withImage"))
    }

    /// The members in log order; `withImage` only when set.
    public var data: JSONObject {
        var object = JSONObject([("uid", .string(uid)), ("email", .string(email)), ("passwordHash", .string(passwordHash))])
        if let withImage { object["withImage"] = .bool(withImage) }
        return object
    }
}

// MARK: - ImageStored

/// A profile image's bytes were stored durably in the blob folder.
public struct ImageStored: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.imageStored
    /// The owner.
    public var uid: String
    /// The blob's name (a lowercase UUID).
    public var imageName: String
    /// `profile_image/<imageName>`, relative to the data directory.
    public var path: String
    /// The format found by magic bytes.
    public var contentType: ImageContentType
    /// The size in bytes.
    public var bytes: Int
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String

    /// A payload from its members; `path` is derived from `imageName`.
    public init(uid: String, imageName: String, contentType: ImageContentType, bytes: Int, sha256: String) {
        self.uid = uid; self.imageName = imageName; self.path = Self.path(for: imageName)
        self.contentType = contentType; self.bytes = bytes; self.sha256 = sha256
    }

    /// Decodes `data`; `path` must be `profile_image/<imageName>`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(uid: try r.uuid("uid"), imageName: try r.uuid("imageName"),
                  contentType: try r.oneOf("contentType", ImageContentType.self),
                  bytes: try r.int("bytes"), sha256: try r.sha256("sha256"))
        guard try r.string("path") == path else { throw EventDataError(member: "path", problem: "must be `\(path)`") }
    }

    /// The blob path of `imageName` relative to the data directory.
    public static func path(for imageName: String) -> String { "profile_image/\(imageName)" }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("imageName", .string(imageName)), ("path", .string(path)),
                    ("contentType", .string(contentType.rawValue)), ("bytes", .int(bytes)), ("sha256", .string(sha256))])
    }
}

// MARK: - ProfileWritten

/// The profile document was written: the registration is complete.
public struct ProfileWritten: EventPayload {
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

    /// A payload from its members.
    public init(uid: String, email: String, userName: String, profileImageName: String?, createdAt: Timestamp) {
        self.uid = uid; self.email = email; self.userName = userName
        self.profileImageName = profileImageName; self.createdAt = createdAt
    }

    /// Decodes `data`; `profileImageName` must be present (null allowed).
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        let image = try r.nullableString("profileImageName")
        if let image, !Identifiers.isLowercaseUUID(image) {
            throw EventDataError(member: "profileImageName", problem: "must be a lowercase UUID or null")
        }
        self.init(uid: try r.uuid("uid"), email: try r.email("email"), userName: try r.nonEmpty("userName"),
                  profileImageName: image, createdAt: try r.timestamp("createdAt"))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("email", .string(email)), ("userName", .string(userName)),
                    ("profileImageName", profileImageName.map(JSONValue.string) ?? .null),
                    ("createdAt", .string(createdAt.rfc3339))])
    }
}

// MARK: - Failed

/// A registration step failed; compensations follow when something was created.
public struct Failed: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.failed
    /// The step that failed.
    public var step: RegistrationStep
    /// A stable kebab-case code (`invalid-email`, `email-already-in-use`, `interrupted`, ...).
    public var reason: String
    /// A human message.
    public var message: String
    /// The email, when one was given.
    public var email: String?
    /// The account, when one existed.
    public var uid: String?

    /// A payload from its members.
    public init(step: RegistrationStep, reason: String, message: String, email: String? = nil, uid: String? = nil) {
        self.step = step; self.reason = reason; self.message = message; self.email = email; self.uid = uid
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(step: try r.oneOf("step", RegistrationStep.self), reason: try r.code("reason"),
                  message: try r.string("message"), email: try r.optionalString("email"),
                  uid: data["uid"] == nil ? nil : try r.uuid("uid"))
    }

    /// The members in log order; absent optionals are omitted.
    public var data: JSONObject {
        var object = JSONObject([("step", .string(step.rawValue)), ("reason", .string(reason)), ("message", .string(message))])
        if let email { object["email"] = .string(email) }
        if let uid { object["uid"] = .string(uid) }
        return object
    }
}

// MARK: - ImageDeleted

/// Compensation: a stored image's blob was removed.
public struct ImageDeleted: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.imageDeleted
    /// The owner.
    public var uid: String
    /// The removed blob.
    public var imageName: String
    /// Why (`compensation`).
    public var reason: CompensationReason

    /// A payload from its members.
    public init(uid: String, imageName: String, reason: CompensationReason = .compensation) {
        self.uid = uid; self.imageName = imageName; self.reason = reason
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(uid: try r.uuid("uid"), imageName: try r.uuid("imageName"), reason: try r.oneOf("reason", CompensationReason.self))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("imageName", .string(imageName)), ("reason", .string(reason.rawValue))])
    }
}

// MARK: - AccountDeleted

/// Compensation: a created account was removed; its email is free again.
public struct AccountDeleted: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.accountDeleted
    /// The removed account.
    public var uid: String
    /// Why (`compensation`).
    public var reason: CompensationReason

    /// A payload from its members.
    public init(uid: String, reason: CompensationReason = .compensation) { self.uid = uid; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(uid: try r.uuid("uid"), reason: try r.oneOf("reason", CompensationReason.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("uid", .string(uid)), ("reason", .string(reason.rawValue))]) }
}
