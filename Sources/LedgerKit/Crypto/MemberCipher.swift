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
        try key.withUnsafeBytes { key in
            Result { () throws(MemberCipherError) -> String in try decrypt(encrypted, eventID: eventID, type: type, member: member, key: key) }
        }.get()
    }

    /// `decrypt` with the key where it lies (32 bytes).
    static func decrypt(_ encrypted: EncryptedMember, eventID: String, type: EventType, member: String,
                        key: UnsafeRawBufferPointer) throws(MemberCipherError) -> String {
        // The associated data `<event id>\n<type>\n<member>\n<subject>`, spelled in a buffer of the call's.
        let parts = [eventID.utf8, type.rawValue.utf8, member.utf8, encrypted.subject.text.utf8]
        let size = parts.reduce(3) { $0 + $1.count }
        let text: String?
        do {
            text = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { (aad) throws(AESGCMError) -> String? in
                var at = 0
                for (k, part) in parts.enumerated() {
                    if k > 0 { aad[at] = UInt8(ascii: "\n"); at += 1 }
                    at = aad[at...].initialize(fromContentsOf: part)
                }
                return try encrypted.sealed.withUnsafeBufferPointer { (sealed) throws(AESGCMError) -> String? in
                    try encrypted.nonce.withUnsafeBufferPointer { (nonce) throws(AESGCMError) -> String? in
                        try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: UnsafeRawBufferPointer(aad)) {
                            Self.utf8Text($0)
                        }
                    }
                }
            }
        } catch {
            throw .crypto(error)
        }
        guard let text else { throw .notText }
        return text
    }

    /// `decrypt` of a member read in place (`SealedMember`), event `eventID`: the associated data
    /// spelled straight into a buffer of the call's (the event id from its bits, the subject as the
    /// line spells it), nothing allocated but the text.
    public static func decrypt(_ member: SealedMember, eventID: UUIDBits, type: EventType, member name: String,
                               key: [UInt8]) throws(MemberCipherError) -> String {
        try key.withUnsafeBytes { key in
            Result { () throws(MemberCipherError) -> String in try decrypt(member, eventID: eventID, type: type, member: name, key: key) }
        }.get()
    }

    /// `decrypt` of a member read in place, with the key where it lies (32 bytes).
    static func decrypt(_ member: SealedMember, eventID: UUIDBits, type: EventType, member name: String,
                        key: UnsafeRawBufferPointer) throws(MemberCipherError) -> String {
        var typeName = type.rawValue, name = name
        let opened = typeName.withUTF8 { typeBytes in
            name.withUTF8 { nameBytes in
                let size = 36 + 1 + typeBytes.count + 1 + nameBytes.count + 1 + member.subjectBytes.count
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { aad -> Result<String?, AESGCMError> in
                    eventID.writeUUID(into: aad.baseAddress!)
                    var at = 36
                    func append(_ part: UnsafeBufferPointer<UInt8>) {
                        aad[at] = UInt8(ascii: "\n")
                        at = aad[(at + 1)...].initialize(fromContentsOf: part)
                    }
                    append(typeBytes)
                    append(nameBytes)
                    append(member.subjectBytes)
                    return Result { () throws(AESGCMError) -> String? in
                        try AESGCM.open(member.sealed, key: key, nonce: member.nonce, associatedData: UnsafeRawBufferPointer(aad)) {
                            Self.utf8Text($0)
                        }
                    }
                }
            }
        }
        let text: String?
        switch opened {
        case .success(let value): text = value
        case .failure(let error): throw .crypto(error)
        }
        guard let text else { throw .notText }
        return text
    }

    /// The plaintext as text, nil when it is not UTF-8: ASCII (every email and most names) is
    /// taken as it is, anything else validated.
    private static func utf8Text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80 ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
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
