// MARK: - SessionStarted

/// A user signed in; only the token's hash is kept.
public struct SessionStarted: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.sessionStarted
    /// The session.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String
    /// When the session stops being valid.
    public var expiresAt: Timestamp

    /// A payload from its members.
    public init(sessionId: String, uid: String, tokenHash: String, expiresAt: Timestamp) {
        self.sessionId = sessionId; self.uid = uid; self.tokenHash = tokenHash; self.expiresAt = expiresAt
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(sessionId: try r.uuid("sessionId"), uid: try r.uuid("uid"), tokenHash: try r.sha256("tokenHash"),
                  expiresAt: try r.timestamp("expiresAt"))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("sessionId", .string(sessionId)), ("uid", .string(uid)), ("tokenHash", .string(tokenHash)),
                    ("expiresAt", .string(expiresAt.rfc3339))])
    }
}

// MARK: - SessionEnded

/// A session ended (`logout`, `account-deleted`, ...).
public struct SessionEnded: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.sessionEnded
    /// The session.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// A kebab-case reason.
    public var reason: String

    /// A payload from its members.
    public init(sessionId: String, uid: String, reason: String) {
        self.sessionId = sessionId; self.uid = uid; self.reason = reason
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(sessionId: try r.uuid("sessionId"), uid: try r.uuid("uid"), reason: try r.code("reason"))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("sessionId", .string(sessionId)), ("uid", .string(uid)), ("reason", .string(reason))])
    }
}

// MARK: - SignInFailed

/// A sign-in was refused; the log keeps the true reason.
public struct SignInFailed: EventPayload {
    /// The catalogue entry.
    public static let eventType = EventType.signInFailed
    /// The normalized email that was tried.
    public var email: String
    /// The true reason.
    public var reason: SignInFailure

    /// A payload from its members.
    public init(email: String, reason: SignInFailure) { self.email = email; self.reason = reason }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = DataReader(object: data)
        self.init(email: try r.string("email"), reason: try r.oneOf("reason", SignInFailure.self))
    }

    /// The members in log order.
    public var data: JSONObject { JSONObject([("email", .string(email)), ("reason", .string(reason.rawValue))]) }
}
