import CLibcrypto

// MARK: - Ed25519

/// Ed25519 (RFC 8032, pure: no pre-hash, no context) through OpenSSL's EVP one-shot interface:
/// a private key is its 32-byte seed (`EVP_PKEY_new_raw_private_key`), a public key 32 bytes, a
/// signature 64 bytes (`EVP_DigestSign` / `EVP_DigestVerify` with no digest, as Ed25519 hashes
/// itself). Signing is deterministic: one seed and one message always give the same signature.
/// libcrypto refuses non-canonical signatures (an `S` not below the group order), so a valid
/// signature cannot be re-spelled into a second valid one.
public enum Ed25519 {
    /// Bytes of a seed (the private key).
    public static let seedSize = 32
    /// Bytes of a public key.
    public static let publicKeySize = 32
    /// Bytes of a signature.
    public static let signatureSize = 64

    /// A fresh seed from `random` (the CSPRNG in production).
    public static func newSeed(random: some RandomSource) -> [UInt8] { random.bytes(seedSize) }

    /// The public key of `seed`.
    public static func publicKey(seed: [UInt8]) throws(Ed25519Error) -> [UInt8] {
        let key = try privateKey(seed)
        defer { EVP_PKEY_free(key) }
        var out = [UInt8](repeating: 0, count: publicKeySize)
        var length = publicKeySize
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == publicKeySize else {
            throw Ed25519Error(.cryptoFailure, "EVP_PKEY_get_raw_public_key failed")
        }
        return out
    }

    /// The 64-byte signature of `message` under `seed`.
    public static func sign(_ message: [UInt8], seed: [UInt8]) throws(Ed25519Error) -> [UInt8] {
        let key = try privateKey(seed)
        defer { EVP_PKEY_free(key) }
        let context = try newContext()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { throw Ed25519Error(.cryptoFailure, "EVP_DigestSignInit failed") }
        var signature = [UInt8](repeating: 0, count: signatureSize)
        var length = signatureSize
        let ok = message.withUnsafeBufferPointer { message in
            EVP_DigestSign(context, &signature, &length, message.baseAddress, message.count)
        }
        guard ok == 1, length == signatureSize else { throw Ed25519Error(.cryptoFailure, "EVP_DigestSign failed") }
        return signature
    }

    /// True when `signature` is a valid signature of `message` by `publicKey`; false for anything
    /// else (a key or signature of the wrong size, a key that is not a curve point) — never a trap.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize else { return false }
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = try? newContext() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        let result = message.withUnsafeBufferPointer { message in
            EVP_DigestVerify(context, signature, signature.count, message.baseAddress, message.count)
        }
        return result == 1
    }

    /// The EVP key of `seed`; the caller frees it.
    private static func privateKey(_ seed: [UInt8]) throws(Ed25519Error) -> OpaquePointer {
        guard seed.count == seedSize else { throw Ed25519Error(.invalidKey, "an Ed25519 seed has 32 bytes; this one has \(seed.count)") }
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw Ed25519Error(.cryptoFailure, "EVP_PKEY_new_raw_private_key(ED25519) failed")
        }
        return key
    }

    /// A fresh digest context; the caller frees it.
    private static func newContext() throws(Ed25519Error) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { throw Ed25519Error(.cryptoFailure, "EVP_MD_CTX_new failed") }
        return context
    }
}
