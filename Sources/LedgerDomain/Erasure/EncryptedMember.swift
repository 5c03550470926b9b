// MARK: - EncryptedMember

/// A personal member as log data version 2 stores it: in place of the value, the JSON object
/// `{"subject":"<subject id>","nonce":"<base64>","ciphertext":"<base64>"}`, members in that order,
/// nothing else. `nonce` is the 12-byte AES-256-GCM nonce, `ciphertext` the encrypted UTF-8 bytes of
/// the member's string value followed by the 16-byte tag. The key is the subject's data key; the
/// associated data (`associatedData`) binds the ciphertext to its event, type, member and subject.
/// This is the description only: the shell (`MemberCipher`) does the cryptography.
public struct EncryptedMember: Equatable, Sendable {
    /// Whose key encrypts the value.
    public let subject: SubjectID
    /// The 96-bit nonce.
    public let nonce: [UInt8]
    /// The ciphertext followed by the 128-bit tag.
    public let sealed: [UInt8]

    /// Bytes of the nonce.
    public static let nonceSize = 12
    /// Bytes of the tag at the end of `sealed`.
    public static let tagSize = 16

    /// A member from its parts; `nonce` must have 12 bytes and `sealed` at least the tag's 16.
    public init(subject: SubjectID, nonce: [UInt8], sealed: [UInt8]) throws(EncryptedMemberError) {
        guard nonce.count == Self.nonceSize else { throw EncryptedMemberError(.badNonce, "the nonce has \(nonce.count) bytes, not 12") }
        guard sealed.count >= Self.tagSize else {
            throw EncryptedMemberError(.badCiphertext, "the ciphertext has \(sealed.count) bytes, fewer than its 16-byte tag")
        }
        self.subject = subject; self.nonce = nonce; self.sealed = sealed
    }

    /// The JSON object written in place of the member's value.
    public var json: JSONValue {
        .object(JSONObject([("subject", .string(subject.text)), ("nonce", .string(Base64.encode(nonce))),
                            ("ciphertext", .string(Base64.encode(sealed)))]))
    }

    /// The member stored as `value`: an object of exactly `subject`, `nonce` and `ciphertext`,
    /// strings, the subject a valid id and both others canonical Base64 of the right sizes.
    public init(json value: JSONValue) throws(EncryptedMemberError) {
        guard let object = value.objectValue else {
            throw EncryptedMemberError(.notEncrypted, "the member is \(value.typeName), not an encrypted member object")
        }
        guard object.keys == ["subject", "nonce", "ciphertext"] else {
            throw EncryptedMemberError(.notEncrypted, "an encrypted member has exactly subject, nonce and ciphertext, in that order")
        }
        guard let text = object["subject"]?.stringValue, let subject = SubjectID(text) else {
            throw EncryptedMemberError(.badSubject, "the subject is not account-<uid> or address-<YYYY-MM-DD>")
        }
        guard let nonce = object["nonce"]?.stringValue.flatMap(Base64.decode) else {
            throw EncryptedMemberError(.badNonce, "the nonce is not canonical Base64")
        }
        guard let sealed = object["ciphertext"]?.stringValue.flatMap(Base64.decode) else {
            throw EncryptedMemberError(.badCiphertext, "the ciphertext is not canonical Base64")
        }
        try self.init(subject: subject, nonce: nonce, sealed: sealed)
    }

    /// The associated data of member `member` of event `eventID` of type `type` under `subject`:
    /// the UTF-8 bytes of `<event id>\n<event type>\n<member name>\n<subject id>`, so a ciphertext
    /// moved to another line, another member or another subject's entry does not open.
    public static func associatedData(eventID: String, type: EventType, member: String, subject: SubjectID) -> [UInt8] {
        Array("\(eventID)\n\(type.rawValue)\n\(member)\n\(subject.text)".utf8)
    }
}

// MARK: - EncryptedMemberError

/// Why a stored member is not a well-formed encrypted member (before any key is tried).
public struct EncryptedMemberError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// Not an object of exactly `subject`, `nonce`, `ciphertext`.
        case notEncrypted = "not-encrypted"
        /// The subject id is not one of the two kinds.
        case badSubject = "bad-subject"
        /// The nonce is not 12 bytes of canonical Base64.
        case badNonce = "bad-nonce"
        /// The ciphertext is not canonical Base64 of at least the tag.
        case badCiphertext = "bad-ciphertext"
    }

    /// The stable code.
    public let code: Code
    /// A one-line message for people.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}
