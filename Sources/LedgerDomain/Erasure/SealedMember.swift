// MARK: - SealedMember

/// An encrypted member read in place from its line (`MemberSlots`): its checked subject, and its
/// nonce and sealed bytes (ciphertext and tag) decoded into buffers of the reader's, valid only
/// during the call that is given it. What `EncryptedMember` holds, without spelling the subject
/// or allocating arrays: a replay meets hundreds of thousands of them.
public struct SealedMember {
    /// The subject id's bytes, as the line spells them (a valid id: the reader checked it).
    public let subjectBytes: UnsafeBufferPointer<UInt8>
    /// The account of an account subject; nil for an address.
    public let account: UUIDBits?
    /// The 12-byte nonce.
    public let nonce: UnsafeBufferPointer<UInt8>
    /// The ciphertext followed by the 16-byte tag.
    public let sealed: UnsafeBufferPointer<UInt8>

    /// A member from its parts (checked by the caller as `EncryptedMember(json:)` checks them).
    public init(subjectBytes: UnsafeBufferPointer<UInt8>, account: UUIDBits?, nonce: UnsafeBufferPointer<UInt8>,
                sealed: UnsafeBufferPointer<UInt8>) {
        self.subjectBytes = subjectBytes; self.account = account; self.nonce = nonce; self.sealed = sealed
    }

    /// The subject, spelled out.
    public var subject: SubjectID {
        if let account { return .account(account) }
        return SubjectID(utf8: subjectBytes) ?? .account(.zero)  // checked before: never the fallback
    }

    /// The member as an `EncryptedMember` (arrays of its own).
    public var encrypted: EncryptedMember? {
        try? EncryptedMember(subject: subject, nonce: Array(nonce), sealed: Array(sealed))
    }
}
