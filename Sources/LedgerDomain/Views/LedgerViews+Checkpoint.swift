// MARK: - Checkpoint codec

/// A checkpoint that does not decode (the shell then ignores it and replays from scratch).
public struct CheckpointError: Error, Equatable, Sendable {
    /// What was wrong.
    public let message: String
}

extension LedgerViews {
    /// Every view as one JSON object (times as epoch milliseconds), for checkpoints.
    public var checkpointJSON: JSONValue {
        let users = self.users.rows.map { row -> JSONValue in
            obj([("uid", .string(row.uid)), ("email", .string(row.email)), ("userName", str(row.userName)),
                 ("profileImageName", str(row.profileImageName)), ("createdAt", ms(row.createdAt)),
                 ("status", .string(row.status.rawValue)), ("registration", .string(row.registration))])
        }
        let sessions = self.sessions.rows.map { row -> JSONValue in
            obj([("sessionId", .string(row.sessionId)), ("uid", .string(row.uid)), ("startedAt", ms(row.startedAt)),
                 ("expiresAt", ms(row.expiresAt)), ("endedAt", ms(row.endedAt))])
        }
        let images = self.images.rows.map { row -> JSONValue in
            obj([("imageName", .string(row.imageName)), ("uid", .string(row.uid)), ("contentType", .string(row.contentType.rawValue)),
                 ("bytes", .int(row.bytes)), ("sha256", .string(row.sha256)), ("storedAt", ms(row.storedAt)),
                 ("status", .string(row.status.rawValue))])
        }
        let registrations = self.registrations.rows.map { s -> JSONValue in
            obj([("registration", .string(s.registration)), ("startedAt", ms(s.startedAt)), ("lastAt", ms(s.lastAt)),
                 ("email", str(s.email)), ("uid", str(s.uid)), ("accountLive", .bool(s.accountLive)),
                 ("withImage", .bool(s.withImage)), ("imageName", str(s.imageName)), ("imageLive", .bool(s.imageLive)),
                 ("profileWritten", .bool(s.profileWritten)), ("failure", s.failure.map { .object($0.data) } ?? .null),
                 ("compensations", .array(s.compensations.map { .string($0.rawValue) })), ("version", .int(s.version))])
        }
        let signIns = self.signIns.rows.map { row -> JSONValue in
            obj([("email", .string(row.email)), ("failures", .int(row.failures)),
                 ("recentFailures", .array(row.recentFailures.map { .int(Int($0.millis)) }))])
        }
        return obj([("events", .int(events)), ("seq", .int(head.seq)), ("hash", .string(head.hash)),
                    ("users", .array(users)), ("sessions", .array(sessions)), ("images", .array(images)),
                    ("registrations", .array(registrations)), ("signIns", .array(signIns))])
    }

    /// Views from `checkpointJSON`; throws `CheckpointError` on any missing or ill-typed member.
    public init(checkpoint json: JSONValue, policy: SignInPolicy = SignInPolicy()) throws(CheckpointError) {
        self.init()
        signIns = SignInView(policy: policy)
        let root = try Read(json)
        events = try root.int("events")
        head = Head(seq: try root.int("seq"), hash: try root.string("hash"))
        for r in try root.array("users") {
            users.restore(UserView.Record(uid: try r.uuid("uid"), registration: try r.uuid("registration"), email: try r.string("email"),
                                          userName: try r.optString("userName"), profileImage: try r.optUUID("profileImageName"),
                                          createdAt: try r.optTime("createdAt"), status: try r.enumeration("status")))
        }
        for r in try root.array("sessions") {
            sessions.upsert(SessionView.Record(session: try r.uuid("sessionId"), uid: try r.uuid("uid"), startedAt: try r.time("startedAt"),
                                               expiresAt: try r.time("expiresAt"), endedAt: try r.optTime("endedAt")))
        }
        for r in try root.array("images") {
            images.upsert(ImageView.Record(image: try r.uuid("imageName"), uid: try r.uuid("uid"), contentType: try r.enumeration("contentType"),
                                           bytes: try r.int("bytes"), sha256: try r.digest("sha256"), storedAt: try r.time("storedAt"),
                                           status: try r.enumeration("status")))
        }
        for r in try root.array("registrations") {
            var s = RegistrationState(id: try r.uuid("registration"))
            s.startedAt = try r.optTime("startedAt"); s.lastAt = try r.optTime("lastAt")
            s.email = try r.optString("email"); s.uidBits = try r.optUUID("uid")
            s.accountLive = try r.bool("accountLive"); s.withImage = try r.bool("withImage")
            s.imageBits = try r.optUUID("imageName"); s.imageLive = try r.bool("imageLive")
            s.profileWritten = try r.bool("profileWritten"); s.version = try r.int("version")
            if let failure = try r.optObject("failure") {
                do { s.failure = try Failed(data: failure) } catch { throw CheckpointError(message: "registration failure: \(error)") }
            }
            s.compensations = try r.strings("compensations").map { text throws(CheckpointError) in
                guard let type = EventType(rawValue: text) else { throw CheckpointError(message: "unknown compensation \(text)") }
                return type
            }
            registrations.restore(s)
        }
        for r in try root.array("signIns") {
            var row = SignInView.Row(email: try r.string("email"))
            row.failures = try r.int("failures")
            row.recentFailures = try r.ints("recentFailures").map { Timestamp(millis: Int64($0)) }
            signIns.restore(row)
        }
    }
}

// MARK: - Helpers

private func obj(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members)) }
private func str(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
private func ms(_ time: Timestamp?) -> JSONValue { time.map { .int(Int($0.millis)) } ?? .null }

/// Typed reads from a checkpoint object.
private struct Read {
    let object: JSONObject

    init(_ value: JSONValue) throws(CheckpointError) {
        guard let object = value.objectValue else { throw CheckpointError(message: "not an object") }
        self.object = object
    }

    init(object: JSONObject) { self.object = object }

    func value(_ key: String) throws(CheckpointError) -> JSONValue {
        guard let value = object[key] else { throw CheckpointError(message: "missing \(key)") }
        return value
    }

    func string(_ key: String) throws(CheckpointError) -> String {
        guard let text = try value(key).stringValue else { throw CheckpointError(message: "\(key) is not a string") }
        return text
    }

    func optString(_ key: String) throws(CheckpointError) -> String? {
        let value = try value(key)
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw CheckpointError(message: "\(key) is not a string") }
        return text
    }

    func int(_ key: String) throws(CheckpointError) -> Int {
        guard let number = try value(key).intValue else { throw CheckpointError(message: "\(key) is not an integer") }
        return number
    }

    func bool(_ key: String) throws(CheckpointError) -> Bool {
        guard case .bool(let flag) = try value(key) else { throw CheckpointError(message: "\(key) is not a boolean") }
        return flag
    }

    func uuid(_ key: String) throws(CheckpointError) -> UUIDBits {
        guard let bits = UUIDBits(uuid: try string(key)) else { throw CheckpointError(message: "\(key) is not a lowercase UUID") }
        return bits
    }

    func optUUID(_ key: String) throws(CheckpointError) -> UUIDBits? {
        guard let text = try optString(key) else { return nil }
        guard let bits = UUIDBits(uuid: text) else { throw CheckpointError(message: "\(key) is not a lowercase UUID") }
        return bits
    }

    func digest(_ key: String) throws(CheckpointError) -> Digest32 {
        guard let digest = Digest32(hex: try string(key)) else { throw CheckpointError(message: "\(key) is not 64 lowercase hex digits") }
        return digest
    }

    func time(_ key: String) throws(CheckpointError) -> Timestamp { Timestamp(millis: Int64(try int(key))) }

    func optTime(_ key: String) throws(CheckpointError) -> Timestamp? {
        let value = try value(key)
        if value.isNull { return nil }
        guard let number = value.intValue else { throw CheckpointError(message: "\(key) is not a time") }
        return Timestamp(millis: Int64(number))
    }

    func enumeration<T: RawRepresentable>(_ key: String) throws(CheckpointError) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(key)) else { throw CheckpointError(message: "\(key) has an unknown value") }
        return value
    }

    func object(_ key: String) throws(CheckpointError) -> JSONObject {
        guard let object = try value(key).objectValue else { throw CheckpointError(message: "\(key) is not an object") }
        return object
    }

    func optObject(_ key: String) throws(CheckpointError) -> JSONObject? {
        let value = try value(key)
        if value.isNull { return nil }
        guard let object = value.objectValue else { throw CheckpointError(message: "\(key) is not an object") }
        return object
    }

    func array(_ key: String) throws(CheckpointError) -> [Read] {
        guard case .array(let items) = try value(key) else { throw CheckpointError(message: "\(key) is not an array") }
        var out: [Read] = []
        for item in items {
            guard let object = item.objectValue else { throw CheckpointError(message: "\(key) holds a non-object") }
            out.append(Read(object: object))
        }
        return out
    }

    func strings(_ key: String) throws(CheckpointError) -> [String] {
        guard case .array(let items) = try value(key) else { throw CheckpointError(message: "\(key) is not an array") }
        var out: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw CheckpointError(message: "\(key) holds a non-string") }
            out.append(text)
        }
        return out
    }

    func ints(_ key: String) throws(CheckpointError) -> [Int] {
        guard case .array(let items) = try value(key) else { throw CheckpointError(message: "\(key) is not an array") }
        var out: [Int] = []
        for item in items {
            guard let number = item.intValue else { throw CheckpointError(message: "\(key) holds a non-integer") }
            out.append(number)
        }
        return out
    }
}
