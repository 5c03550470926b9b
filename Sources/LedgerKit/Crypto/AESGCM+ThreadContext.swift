import CLibcrypto
import Glibc

// MARK: - AESGCM, opening with this thread's context

extension AESGCM {
    /// A thread's decryption context and the key it holds: members of one subject follow each
    /// other (an account's email and username on one line, its registration's lines), so a context
    /// keyed once serves them all, each message setting only its nonce (`EVP_DecryptInit_ex` with
    /// no key keeps the key schedule and GCM's table).
    private final class ThreadContext {
        let pointer: OpaquePointer
        /// The key `pointer` holds, when `keyed`.
        var key = [UInt8](repeating: 0, count: AESGCM.keySize)
        var keyed = false

        init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit {
            for i in key.indices { key[i] = 0 }
            EVP_CIPHER_CTX_free(pointer)  // cleanses the key schedule
        }

        /// Keys the context with `key` (32 bytes, unless it holds them already) and sets `nonce`.
        func start(key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>) -> Bool {
            let given = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let same = keyed && self.key.withUnsafeBytes { memcmp($0.baseAddress!, given, AESGCM.keySize) == 0 }
            keyed = false
            guard EVP_DecryptInit_ex(pointer, nil, nil, same ? nil : given, nonce) == 1 else { return false }
            if !same { self.key.withUnsafeMutableBytes { _ = memcpy($0.baseAddress!, given, AESGCM.keySize) } }
            keyed = true
            return true
        }
    }

    /// Each thread's decryption context, made on its first use and freed when the thread ends: a
    /// read that opens hundreds of thousands of members never allocates or sets up a context per
    /// member (the cipher stays set, and the key while the subject does not change).
    private static let threadContextKey: pthread_key_t = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { pointer in
            if let pointer { Unmanaged<ThreadContext>.fromOpaque(pointer).release() }
        }) == 0 else {
            preconditionFailure("pthread_key_create failed")  // only when the process is out of thread keys
        }
        return key
    }()

    /// This thread's decryption context, with AES-256-GCM set.
    private static func threadContext() throws(AESGCMError) -> ThreadContext {
        if let pointer = pthread_getspecific(threadContextKey) { return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue() }
        guard let context = EVP_CIPHER_CTX_new() else { throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_new failed") }
        guard EVP_DecryptInit_ex(context, cipher, nil, nil, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be initialised")
        }
        let thread = ThreadContext(context)
        guard pthread_setspecific(threadContextKey, Unmanaged.passRetained(thread).toOpaque()) == 0 else {
            Unmanaged.passUnretained(thread).release()
            throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be initialised")
        }
        return thread
    }

    /// `body` of the plaintext of `sealed` (ciphertext followed by tag) under `key`, `nonce` and
    /// `associatedData`, decrypted into a buffer that lives only for the call; `authenticationFailed`
    /// when anything differs from what was sealed (then `body` is not called). What `open` does,
    /// without its allocations.
    static func open<T>(_ sealed: UnsafeBufferPointer<UInt8>, key: [UInt8], nonce: UnsafeBufferPointer<UInt8>,
                        associatedData: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(AESGCMError) -> T {
        try key.withUnsafeBytes { key in
            Result { () throws(AESGCMError) -> T in try open(sealed, key: key, nonce: nonce, associatedData: associatedData, body) }
        }.get()
    }

    /// `open` with the key where it lies (a key table's, `AccountKeyTable`).
    static func open<T>(_ sealed: UnsafeBufferPointer<UInt8>, key: UnsafeRawBufferPointer, nonce: UnsafeBufferPointer<UInt8>,
                        associatedData: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(AESGCMError) -> T {
        guard sealed.count >= tagSize else {
            throw AESGCMError(.tooShort, "a sealed message has at least its \(tagSize)-byte tag; this one has \(sealed.count) bytes")
        }
        let length = sealed.count - tagSize
        guard key.count == keySize else { throw AESGCMError(.invalidKey, "an AES-256 key has 32 bytes; this one has \(key.count)") }
        guard nonce.count == nonceSize else { throw AESGCMError(.invalidNonce, "a GCM nonce here has 12 bytes; this one has \(nonce.count)") }
        guard length <= Int(Int32.max) - tagSize else { throw AESGCMError(.tooLarge, "a message of \(length) bytes is too large") }
        let thread = try threadContext()
        let context = thread.pointer
        // Keys the context when the key changed, and sets the nonce (AES-GCM's default nonce length
        // is the 12 bytes used here).
        guard thread.start(key: key, nonce: nonce.baseAddress!) else { throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be keyed") }
        var written: Int32 = 0
        if associatedData.count > 0 {
            guard EVP_DecryptUpdate(context, nil, &written, associatedData.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Int32(associatedData.count)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP update of the associated data failed")
            }
        }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + tagSize) { (out) throws(AESGCMError) -> T in
            let input = sealed.baseAddress!
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), UnsafeMutableRawPointer(mutating: input + length)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_ctrl(SET_TAG) failed")
            }
            var total = 0
            if length > 0 {
                guard EVP_DecryptUpdate(context, out.baseAddress!, &written, input, Int32(length)) == 1 else {
                    throw AESGCMError(.cryptoFailure, "EVP update of the message failed")
                }
                total = Int(written)
            }
            guard EVP_DecryptFinal_ex(context, out.baseAddress! + total, &written) > 0 else {
                throw AESGCMError(.authenticationFailed, "the message does not open: wrong key, nonce or associated data, or changed bytes")
            }
            return body(UnsafeBufferPointer(rebasing: out[..<(total + Int(written))]))
        }
    }
}
