// MARK: - EventDataError

/// A `data` payload that does not match its type's schema.
public struct EventDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offending member.
    public let member: String
    /// What is wrong with it.
    public let problem: String
    /// A one-line description.
    public var description: String { "data.\(member) \(problem)" }
}

// MARK: - DataReader

/// Reads typed members out of a `data` object, throwing `EventDataError` naming the member.
struct DataReader {
    let object: JSONObject

    func value(_ key: String) throws(EventDataError) -> JSONValue {
        guard let value = object[key] else { throw EventDataError(member: key, problem: "is missing") }
        return value
    }

    func string(_ key: String) throws(EventDataError) -> String {
        let value = try value(key)
        guard let text = value.stringValue else { throw EventDataError(member: key, problem: "must be a string, not \(value.typeName)") }
        return text
    }

    /// An optional string member: absent is nil; present must be a string (null is not allowed).
    func optionalString(_ key: String) throws(EventDataError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw EventDataError(member: key, problem: "must be a string when present, not \(value.typeName)") }
        return text
    }

    /// A string member that may be null (`profileImageName`).
    func nullableString(_ key: String) throws(EventDataError) -> String? {
        let value = try value(key)
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw EventDataError(member: key, problem: "must be a string or null, not \(value.typeName)") }
        return text
    }

    /// A crypt(3) string in modular crypt format: `$<id>$<rest>` with an id of `[0-9a-z]` and no spaces or colons.
    func cryptHash(_ key: String) throws(EventDataError) -> String {
        let text = try nonEmpty(key)
        guard Self.isCryptHash(text) else { throw EventDataError(member: key, problem: "must be a crypt(3) string like $y$…") }
        return text
    }

    /// True for `$<id>$<rest>`: an id of digits and lowercase letters, then printable bytes without `:`.
    static func isCryptHash(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isCryptHash(bytes: $0) }
    }

    /// `isCryptHash` of UTF-8 bytes.
    static func isCryptHash(bytes b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 3, b[0] == UInt8(ascii: "$") else { return false }
        var i = 1
        while i < b.count, (b[i] >= 0x30 && b[i] <= 0x39) || (b[i] >= 0x61 && b[i] <= 0x7A) { i += 1 }
        guard i > 1, i < b.count - 1, b[i] == UInt8(ascii: "$") else { return false }
        for byte in b[(i + 1)...] where byte <= 0x20 || byte == UInt8(ascii: ":") || byte == 0x7F { return false }
        return true
    }

    func optionalBool(_ key: String) throws(EventDataError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else { throw EventDataError(member: key, problem: "must be a boolean, not \(value.typeName)") }
        return flag
    }

    func uuid(_ key: String) throws(EventDataError) -> String {
        let text = try string(key)
        guard Identifiers.isLowercaseUUID(text) else { throw EventDataError(member: key, problem: "must be a lowercase UUID") }
        return text
    }

    func nonEmpty(_ key: String) throws(EventDataError) -> String {
        let text = try string(key)
        guard !text.isEmpty else { throw EventDataError(member: key, problem: "must not be empty") }
        return text
    }

    func email(_ key: String) throws(EventDataError) -> String {
        let text = try nonEmpty(key)
        guard Self.isLowercase(text) else { throw EventDataError(member: key, problem: "must be normalized to lowercase") }
        return text
    }

    /// True when no byte is an ASCII capital letter (emails are stored normalized).
    static func isLowercase(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isLowercase(bytes: $0) }
    }

    /// `isLowercase` of UTF-8 bytes.
    static func isLowercase(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte &- UInt8(ascii: "A") < 26 { return false }
        return true
    }

    func sha256(_ key: String) throws(EventDataError) -> String {
        let text = try string(key)
        guard Identifiers.isLowerHex(text) else { throw EventDataError(member: key, problem: "must be 64 lowercase hex digits") }
        return text
    }

    func int(_ key: String, minimum: Int = 0) throws(EventDataError) -> Int {
        let value = try value(key)
        guard let number = value.intValue else { throw EventDataError(member: key, problem: "must be an integer, not \(value.typeName)") }
        guard number >= minimum else { throw EventDataError(member: key, problem: "must be at least \(minimum)") }
        return number
    }

    func timestamp(_ key: String) throws(EventDataError) -> Timestamp {
        let text = try string(key)
        guard Timestamp.isCanonical(text), let stamp = Timestamp(rfc3339: text) else {
            throw EventDataError(member: key, problem: "must be an RFC 3339 UTC time with milliseconds, e.g. 2026-11-29T15:54:00.123Z")
        }
        return stamp
    }

    func code(_ key: String) throws(EventDataError) -> String {
        let text = try string(key)
        guard Self.isKebabCase(text) else { throw EventDataError(member: key, problem: "must be a kebab-case code") }
        return text
    }

    func oneOf<T: RawRepresentable>(_ key: String, _: T.Type) throws(EventDataError) -> T where T.RawValue == String, T: CaseIterable {
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            throw EventDataError(member: key, problem: "must be one of \(allowed)")
        }
        return value
    }

    /// `^[a-z0-9]+(-[a-z0-9]+)*$`.
    static func isKebabCase(_ text: String) -> Bool {
        var previousDash = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                if previousDash { return false }
                previousDash = true
            } else if (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                previousDash = false
            } else {
                return false
            }
        }
        return !previousDash
    }
}
