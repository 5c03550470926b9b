// MARK: - NoteCrypto

/// The two primitives signed notes need, injected (LedgerDomain has no crypto; LedgerKit gives the
/// libcrypto ones as `NoteCrypto.libcrypto`): SHA-256 for key ids, and Ed25519 verification.
public struct NoteCrypto: Sendable {
    /// SHA-256 of a byte string.
    public let sha256: @Sendable (UnsafeRawBufferPointer) -> Digest32
    /// True when the 64-byte `signature` of `message` verifies under the 32-byte `publicKey`.
    public let verifyEd25519: @Sendable (_ signature: [UInt8], _ message: [UInt8], _ publicKey: [UInt8]) -> Bool

    /// Primitives from their functions.
    public init(sha256: @escaping @Sendable (UnsafeRawBufferPointer) -> Digest32,
                verifyEd25519: @escaping @Sendable (_ signature: [UInt8], _ message: [UInt8], _ publicKey: [UInt8]) -> Bool) {
        self.sha256 = sha256; self.verifyEd25519 = verifyEd25519
    }

    /// The key id of a key (C2SP signed-note): the first 4 bytes, big-endian, of
    /// SHA-256(name ‖ 0x0A ‖ type ‖ public key).
    public func keyID(name: String, type: NoteKeyType, publicKey: [UInt8]) -> UInt32 {
        let input = Array(name.utf8) + [0x0A, type.rawValue] + publicKey
        let digest = input.withUnsafeBytes { sha256($0) }
        return UInt32(truncatingIfNeeded: digest.a >> 32)
    }
}
