import CLibcrypto
import Glibc

// MARK: - AESGCM, opening with this thread's context

extension AESGCM {
    /// A thread's decryption context and the key it holds: members of one subject follow each
    /// other (an account's email and username on one line, its registration's lines), so a context
    /// keyed once serves them all, each message setting only its nonce (an init with no key keeps
    /// the key schedule and GCM's table). The provider's own context when its functions are found
    /// (`AESGCM.ProviderFunctions`), else an EVP one.
    private final class ThreadContext {
        enum State {
            case provider(ProviderFunctions, UnsafeMutableRawPointer)
            case evp(OpaquePointer)
        }

        let state: State
        /// The key the context holds, when `keyed`.
        var key = [UInt8](repeating: 0, count: AESGCM.keySize)
        var keyed = false

        init(_ state: State) { self.state = state }

        deinit {
            for i in key.indices { key[i] = 0 }
            switch state {  // both cleanse the key schedule
            case .provider(let functions, let context): functions.freeContext(context)
            case .evp(let context): EVP_CIPHER_CTX_free(context)
            }
        }

        /// Keys the context with `key` (32 bytes, unless it holds them already) and sets `nonce`.
        func start(key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>) -> Bool {
            let given = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let same = keyed && self.key.withUnsafeBytes { memcmp($0.baseAddress!, given, AESGCM.keySize) == 0 }
            keyed = false
            let started = switch state {
            case .provider(let functions, let context):
                functions.decryptInit(context, same ? nil : given, AESGCM.keySize, nonce, AESGCM.nonceSize, nil) == 1
            case .evp(let context):
                EVP_DecryptInit_ex(context, nil, nil, same ? nil : given, nonce) == 1
            }
            guard started else { return false }
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
        let thread = try ThreadContext(newState(usingProvider: true))
        guard pthread_setspecific(threadContextKey, Unmanaged.passRetained(thread).toOpaque()) == 0 else {
            Unmanaged.passUnretained(thread).release()
            throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be initialised")
        }
        return thread
    }

    /// A new decryption context: the provider's, or EVP's with AES-256-GCM set.
    private static func newState(usingProvider: Bool) throws(AESGCMError) -> ThreadContext.State {
        if usingProvider, let functions = ProviderFunctions.shared, let context = functions.newContext(functions.providerContext) {
            return .provider(functions, context)
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_new failed") }
        guard EVP_DecryptInit_ex(context, cipher, nil, nil, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be initialised")
        }
        return .evp(context)
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
        try open(sealed, key: key, nonce: nonce, associatedData: associatedData, thread: nil, body)
    }

    /// `open` with a context of its own, the provider's or (`usingProvider: false`) EVP's: what the
    /// tests compare.
    static func open<T>(_ sealed: UnsafeBufferPointer<UInt8>, key: UnsafeRawBufferPointer, nonce: UnsafeBufferPointer<UInt8>,
                        associatedData: UnsafeRawBufferPointer, usingProvider: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(AESGCMError) -> T {
        try open(sealed, key: key, nonce: nonce, associatedData: associatedData, thread: ThreadContext(newState(usingProvider: usingProvider)), body)
    }

    /// True when this process opens through the provider's own functions.
    static var opensThroughProvider: Bool { ProviderFunctions.shared != nil }

    private static func open<T>(_ sealed: UnsafeBufferPointer<UInt8>, key: UnsafeRawBufferPointer, nonce: UnsafeBufferPointer<UInt8>,
                                associatedData: UnsafeRawBufferPointer, thread given: ThreadContext?,
                                _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(AESGCMError) -> T {
        guard sealed.count >= tagSize else {
            throw AESGCMError(.tooShort, "a sealed message has at least its \(tagSize)-byte tag; this one has \(sealed.count) bytes")
        }
        let length = sealed.count - tagSize
        guard key.count == keySize else { throw AESGCMError(.invalidKey, "an AES-256 key has 32 bytes; this one has \(key.count)") }
        guard nonce.count == nonceSize else { throw AESGCMError(.invalidNonce, "a GCM nonce here has 12 bytes; this one has \(nonce.count)") }
        guard length <= Int(Int32.max) - tagSize else { throw AESGCMError(.tooLarge, "a message of \(length) bytes is too large") }
        let thread: ThreadContext
        if let given { thread = given } else { thread = try threadContext() }
        // Keys the context when the key changed, and sets the nonce (AES-GCM's default nonce length
        // is the 12 bytes used here).
        guard thread.start(key: key, nonce: nonce.baseAddress!) else { throw AESGCMError(.cryptoFailure, "AES-256-GCM could not be keyed") }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + tagSize) { (out) throws(AESGCMError) -> T in
            let input = sealed.baseAddress!
            let opened: Int? = switch thread.state {
            case .provider(let functions, let context):
                functions.open(context, input: input, length: length, associatedData: associatedData, into: out.baseAddress!)
            case .evp(let context):
                try openEVP(context, input: input, length: length, associatedData: associatedData, into: out.baseAddress!)
            }
            guard let opened else {
                throw AESGCMError(.authenticationFailed, "the message does not open: wrong key, nonce or associated data, or changed bytes")
            }
            return body(UnsafeBufferPointer(rebasing: out[..<opened]))
        }
    }

    /// `ProviderFunctions.open` through EVP: the bytes written, nil when the tag does not match.
    private static func openEVP(_ context: OpaquePointer, input: UnsafePointer<UInt8>, length: Int, associatedData: UnsafeRawBufferPointer,
                                into out: UnsafeMutablePointer<UInt8>) throws(AESGCMError) -> Int? {
        var written: Int32 = 0
        if associatedData.count > 0 {
            guard EVP_DecryptUpdate(context, nil, &written, associatedData.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Int32(associatedData.count)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP update of the associated data failed")
            }
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), UnsafeMutableRawPointer(mutating: input + length)) == 1 else {
            throw AESGCMError(.cryptoFailure, "EVP_CIPHER_CTX_ctrl(SET_TAG) failed")
        }
        var total = 0
        if length > 0 {
            guard EVP_DecryptUpdate(context, out, &written, input, Int32(length)) == 1 else {
                throw AESGCMError(.cryptoFailure, "EVP update of the message failed")
            }
            total = Int(written)
        }
        guard EVP_DecryptFinal_ex(context, out + total, &written) > 0 else { return nil }
        return total + Int(written)
    }
}
