// MARK: - Rows as JSON

// The `--json` rows of the read commands; `ViewDigest` hashes the same bytes (see `ViewRowsWriter`).

extension UserRow {
    /// The users view's `--json` row.
    public var json: JSONValue {
        let erased = ErasedText.isErased(email)
        var object = JSONObject([("uid", .string(uid)), ("email", ErasedText.json(email)),
                                 ("userName", erased ? .null : userName.map(JSONValue.string) ?? .null),
                                 ("profileImageName", profileImageName.map(JSONValue.string) ?? .null),
                                 ("createdAt", createdAt.map { .string($0.rfc3339) } ?? .null), ("status", .string(status.rawValue)),
                                 ("emailVerified", .bool(emailVerified))])
        if erased { object["erased"] = .bool(true) }
        return .object(object)
    }
}

extension SessionRow {
    /// The sessions view's `--json` row at `asOf`.
    public func json(at asOf: Timestamp) -> JSONValue {
        .object(JSONObject([("sessionId", .string(sessionId)), ("uid", .string(uid)), ("startedAt", .string(startedAt.rfc3339)),
                            ("expiresAt", .string(expiresAt.rfc3339)), ("endedAt", endedAt.map { .string($0.rfc3339) } ?? .null),
                            ("status", .string(status(at: asOf).rawValue))]))
    }
}

extension ImageRow {
    /// The images view's `--json` row.
    public var json: JSONValue {
        .object(JSONObject([("imageName", .string(imageName)), ("uid", .string(uid)), ("contentType", .string(contentType.rawValue)),
                            ("bytes", .int(bytes)), ("sha256", .string(sha256)), ("storedAt", .string(storedAt.rfc3339)),
                            ("status", .string(status.rawValue))]))
    }
}

extension RegistrationRow {
    /// The registrations view's `--json` row.
    public var json: JSONValue {
        let erased = email.map(ErasedText.isErased) ?? false
        return .object(JSONObject([("registration", .string(registration)), ("startedAt", startedAt.map { .string($0.rfc3339) } ?? .null),
                            ("email", erased ? .null : email.map(JSONValue.string) ?? .null)] + (erased ? [("erased", .bool(true))] : [])
                            + [("outcome", .string(outcome.rawValue)),
                            ("step", failure.map { .string($0.step.rawValue) } ?? .null),
                            ("reason", failure.map { .string($0.reason) } ?? .null),
                            ("compensations", .array(compensations.map { .string($0.rawValue) }))]))
    }
}
