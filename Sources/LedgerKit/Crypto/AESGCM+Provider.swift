import CLibcrypto
import Glibc

// MARK: - AESGCM, opening through the provider's own functions

extension AESGCM {
    /// The AES-256-GCM implementation of the provider `EVP_CIPHER_fetch` found (`AESGCM.cipher`),
    /// called through its dispatch table (`OSSL_PROVIDER_query_operation`, `core_dispatch.h`):
    /// libcrypto's AES-GCM itself, without what EVP adds to each short message on OpenSSL 3.0 (each
    /// `EVP_DecryptInit_ex` asks the provider for the nonce's length through a parameter lookup,
    /// and setting the tag through `EVP_CIPHER_CTX_ctrl` builds and searches another). Used only to
    /// open; nil when the provider does not offer all six functions, and then `open` uses EVP.
    struct ProviderFunctions: @unchecked Sendable {
        typealias NewContext = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        typealias FreeContext = @convention(c) (UnsafeMutableRawPointer?) -> Void
        typealias DecryptInit = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int,
                                                UnsafePointer<OSSL_PARAM>?) -> Int32
        typealias Update = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, Int,
                                           UnsafePointer<UInt8>?, Int) -> Int32
        typealias Final = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, Int) -> Int32
        typealias SetParameters = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<OSSL_PARAM>?) -> Int32

        let newContext: NewContext
        let freeContext: FreeContext
        let decryptInit: DecryptInit
        let update: Update
        let final: Final
        let setParameters: SetParameters
        /// The provider's own context, which `newContext` takes.
        let providerContext: UnsafeMutableRawPointer?

        /// The functions of the provider that implements `AESGCM.cipher`, found once per process.
        static let shared: ProviderFunctions? = find()

        /// The parameter name of the tag (`OSSL_CIPHER_PARAM_AEAD_TAG`), as a C string that lives
        /// as long as the process.
        nonisolated(unsafe) static let tagName: UnsafePointer<CChar> = UnsafePointer(strdup("tag")!)

        private static func find() -> ProviderFunctions? {
            guard let provider = EVP_CIPHER_get0_provider(AESGCM.cipher),
                  let found = ProviderDispatch.functions(of: provider, operation: OSSL_OP_CIPHER, named: "AES-256-GCM") else { return nil }
            guard let new = found[OSSL_FUNC_CIPHER_NEWCTX], let free = found[OSSL_FUNC_CIPHER_FREECTX],
                  let initialise = found[OSSL_FUNC_CIPHER_DECRYPT_INIT], let update = found[OSSL_FUNC_CIPHER_UPDATE],
                  let final = found[OSSL_FUNC_CIPHER_FINAL], let set = found[OSSL_FUNC_CIPHER_SET_CTX_PARAMS] else { return nil }
            return ProviderFunctions(newContext: unsafeBitCast(new, to: NewContext.self), freeContext: unsafeBitCast(free, to: FreeContext.self),
                                     decryptInit: unsafeBitCast(initialise, to: DecryptInit.self), update: unsafeBitCast(update, to: Update.self),
                                     final: unsafeBitCast(final, to: Final.self), setParameters: unsafeBitCast(set, to: SetParameters.self),
                                     providerContext: OSSL_PROVIDER_get0_provider_ctx(provider))
        }

        /// Opens `length` bytes of ciphertext at `input`, followed by its tag, into `out` (room for
        /// `length`) with the provider's context `context`, already keyed and given its nonce, and
        /// `associatedData`; the bytes written, nil when the tag does not match (or a call fails).
        func open(_ context: UnsafeMutableRawPointer, input: UnsafePointer<UInt8>, length: Int,
                  associatedData: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int? {
            var written = 0
            if associatedData.count > 0 {
                // No output: the bytes are associated data (the provider's update checks the room
                // it is told of even then).
                guard update(context, nil, &written, associatedData.count, associatedData.baseAddress!.assumingMemoryBound(to: UInt8.self),
                             associatedData.count) == 1 else { return nil }
            }
            var parameters = (OSSL_PARAM_construct_octet_string(Self.tagName, UnsafeMutableRawPointer(mutating: input + length), AESGCM.tagSize),
                              OSSL_PARAM_construct_end())
            let tagSet = withUnsafePointer(to: &parameters) {
                $0.withMemoryRebound(to: OSSL_PARAM.self, capacity: 2) { setParameters(context, $0) == 1 }
            }
            guard tagSet else { return nil }
            var total = 0
            if length > 0 {
                guard update(context, out, &written, length, input, length) == 1, written <= length else { return nil }
                total = written
            }
            // GCM's final writes nothing; it compares the tag.
            guard final(context, out + total, &written, length - total) == 1 else { return nil }
            return total + written
        }
    }
}
