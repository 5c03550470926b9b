import LedgerDomain

// MARK: - MemberCipher

/// Encrypts and decrypts one personal member of log data version 2 (`EncryptedMember` describes
/// the format, `PersonalMembers` which members are personal and whose): AES-256-GCM under the
/// subject's data key, a fresh random nonce per member, the UTF-8 bytes of the member's string
/// value as plaintext, and `EncryptedMember.associatedData` binding it to its event, type, member
/// and subject.
public enum MemberCipher {
    /// The JSON object stored in place of `value`, member `member` of event `eventID` of type
    /// `type`, encrypted under `key`, the data key of `subject`.
    public static func encrypt(_ value: String, eventID: String, type: EventType, member: String, subject: SubjectID,
                               key: [UInt8], random: some RandomSource) throws(AESGCMError) -> JSONValue {
        let aad = EncryptedMember.associatedData(eventID: eventID, type: type, member: member, subject: subject)
        let (nonce, sealed) = try AESGCM.seal(Array(value.utf8), key: key, associatedData: aad, random: random)
        do {
            return try EncryptedMember(subject: subject, nonce: nonce, sealed: sealed).json
        } catch {
            throw AESGCMError(.cryptoFailure, "the sealed member is malformed: \(error)")  // a broken RandomSource
        }
    }

    /// The string value of the stored member `stored` (member `member` of event `eventID` of type
    /// `type`), opened with `key`: the data key of the subject the member names, which the caller
    /// looks up (`EncryptedMember(json:)`.subject) in the key store.
    public static func decrypt(_ stored: JSONValue, eventID: String, type: EventType, member: String,
                               key: [UInt8]) throws(MemberCipherError) -> String {
        let encrypted: EncryptedMember
        do { encrypted = try EncryptedMember(json: stored) } catch { throw .malformed(error) }
        return try decrypt(encrypted, eventID: eventID, type: type, member: member, key: key)
    }

    /// The string value of `encrypted`, member `member` of event `eventID` of type `type`, under `key`.
    public static func decrypt(_ encrypted: EncryptedMember, eventID: String, type: EventType, member: String,
                               key: [UInt8]) throws(MemberCipherError) -> String {
        let aad = EncryptedMember.associatedData(eventID: eventID, type: type, member: member, subject: encrypted.subject)
        let plaintext: [UInt8]
        do { plaintext = try AESGCM.open(encrypted.sealed, key: key, nonce: encrypted.nonce, associatedData: aad) } catch {
            throw .crypto(error)
        }
        guard let text = String(validating: plaintext, as: UTF8.self) else { throw .notText }
        return text
    }
}

// MARK: - MemberCipherError

/// Why a stored member could not be decrypted.
public enum MemberCipherError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stored value is not a well-formed encrypted member.
    case malformed(EncryptedMemberError)
    /// AES-256-GCM refused it (`authentication-failed`: another key, line, member or changed bytes).
    case crypto(AESGCMError)
    /// It opened, but its plaintext is not UTF-8 (never written so by `encrypt`).
    case notText

    /// The stable code: the underlying error's, or `not-text`.
    public var code: String {
        switch self {
        case .malformed(let error): error.code.rawValue
        case .crypto(let error): error.code.rawValue
        case .notText: "not-text"
        }
    }

    /// A one-line message.
    public var description: String {
        switch self {
        case .malformed(let error): error.message
        case .crypto(let error): error.message
        case .notText: "the decrypted member is not UTF-8 text"
        }
    }
}
