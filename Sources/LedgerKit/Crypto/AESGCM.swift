import CLibcrypto

// MARK: - AESGCM

/// AES-256-GCM through OpenSSL's EVP interface (`EVP_CIPHER_CTX`, never the deprecated `AES_*`
/// calls nor a hand-written primitive): a 256-bit key, a 96-bit nonce, associated data, and a
/// 128-bit tag appended to the ciphertext. Opening checks the tag before returning anything: a
/// wrong key, nonce, associated data or any flipped bit is `AESGCMError.authenticationFailed`,
/// never a trap. A nonce must never be used twice with one key: `seal(_:key:associatedData:random:)`
/// draws a fresh random one for each message (safe for far more than the 2^32 messages a key may
/// seal with random nonces before the collision risk reaches 2^-32).
public enum AESGCM {
    /// Bytes of a key.
    public static let keySize = 32
    /// Bytes of a nonce.
    public static let nonceSize = 12
    /// Bytes of the tag at the end of a sealed message.
    public static let tagSize = 16

    /// AES-256-GCM, fetched from the provider once per process (the cipher `EVP_aes_256_gcm()`
    /// names, without a provider lookup on every initialisation). Immutable; shared by threads.
    nonisolated(unsafe) static let cipher: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else { preconditionFailure("libcrypto has no AES-256-GCM") }
        return cipher
    }()

    /// `plaintext` encrypted under `key` with a fresh random nonce from `random`: the nonce, and
    /// the ciphertext followed by the tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8],
                            random: some RandomSource) throws(AESGCMError) -> (nonce: [UInt8], sealed: [UInt8]) {
        let nonce = random.bytes(nonceSize)
        return (nonce, try seal(plaintext, key: key, nonce: nonce, associatedData: associatedData))
    }

    /// `plaintext` encrypted under `key` and `nonce`: the ciphertext followed by the 16-byte tag.
    /// Never reuse a nonce with the same key (the known-answer tests are what this form is for).
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws(AESGCMError) -> [UInt8] {
        try check(key: key, nonce: nonce, length: plaintext.count)
        let context = try Context(key: key, nonce: nonce, encrypting: true)
        try context.addAssociatedData(associatedData)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        try out.withUnsafeMutableBufferPointer { (out) throws(AESGCMError) in
            let written = try context.update(plaintext, into: out.baseAddress!)
            try context.finish(into: out.baseAddress! + written)
            guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), out.baseAddress! + plaintext.count) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_ctrl(GET_TAG) failed")
            }
        }
        return out
    }

    /// The plaintext of `sealed` (ciphertext followed by tag) under `key`, `nonce` and
    /// `associatedData`; `authenticationFailed` when anything differs from what was sealed.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws(AESGCMError) -> [UInt8] {
        guard sealed.count >= tagSize else {
            throw AESGCMError(.tooShort, "a sealed message has at least its \(tagSize)-byte tag; this one has \(sealed.count) bytes")
        }
        let length = sealed.count - tagSize
        try check(key: key, nonce: nonce, length: length)
        let context = try Context(key: key, nonce: nonce, encrypting: false)
        try context.addAssociatedData(associatedData)
        var tag = Array(sealed[length...])
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1 else {
            throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_ctrl(SET_TAG) failed")
        }
        var out = [UInt8](repeating: 0, count: length + tagSize)  // room for the final call's (empty) output
        try out.withUnsafeMutableBufferPointer { (out) throws(AESGCMError) in
            let written = try context.update(Array(sealed[..<length]), into: out.baseAddress!)
            try context.finish(into: out.baseAddress! + written)
        }
        out.removeLast(tagSize)
        return out
    }

    /// Refuses a key or nonce of the wrong size, and a message EVP's `int` lengths cannot hold.
    static func check(key: [UInt8], nonce: [UInt8], length: Int) throws(AESGCMError) {
        guard key.count == keySize else { throw AESGCMError(.invalidKey, "an AES-256 key has 32 bytes; this one has \(key.count)") }
        guard nonce.count == nonceSize else { throw AESGCMError(.invalidNonce, "a GCM nonce here has 12 bytes; this one has \(nonce.count)") }
        guard length <= Int(Int32.max) - tagSize else { throw AESGCMError(.tooLarge, "a message of \(length) bytes is too large") }
    }
}
