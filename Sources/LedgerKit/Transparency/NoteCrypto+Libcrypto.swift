import LedgerDomain

// MARK: - NoteCrypto + libcrypto

extension NoteCrypto {
    /// SHA-256 and Ed25519 from libcrypto.
    public static let libcrypto = NoteCrypto(
        sha256: { bytes in SHA256.digest(bytes).withUnsafeBytes { Digest32(bytes: $0) } },
        verifyEd25519: { signature, message, publicKey in Ed25519.verify(signature, of: message, publicKey: publicKey) })
}
