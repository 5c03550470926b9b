import CLibcrypto
import Glibc

// MARK: - SHA256, through the provider's own functions

extension SHA256 {
    /// The SHA-256 implementation of the provider `EVP_MD_fetch` found (`SHA256.algorithm`), called
    /// through its dispatch table (`OSSL_PROVIDER_query_operation`, `core_dispatch.h`): libcrypto's
    /// SHA-256 itself, without what `EVP_DigestInit_ex` adds on OpenSSL 3.0 to each short input
    /// (it frees the context's state and allocates it again on every init). Nil when the provider
    /// does not offer all five functions; then `SHA256Context` uses EVP.
    struct ProviderFunctions: @unchecked Sendable {
        typealias NewContext = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        typealias FreeContext = @convention(c) (UnsafeMutableRawPointer?) -> Void
        typealias Initialize = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<OSSL_PARAM>?) -> Int32
        typealias Update = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32
        typealias Finish = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, Int) -> Int32

        let newContext: NewContext
        let freeContext: FreeContext
        let initialize: Initialize
        let update: Update
        let finish: Finish
        /// The provider's own context, which `newContext` takes.
        let providerContext: UnsafeMutableRawPointer?

        /// The functions of the provider that implements `SHA256.algorithm`, found once per process.
        static let shared: ProviderFunctions? = find()

        private static func find() -> ProviderFunctions? {
            guard let provider = EVP_MD_get0_provider(SHA256.algorithm),
                  let found = ProviderDispatch.functions(of: provider, operation: OSSL_OP_DIGEST, named: "SHA2-256") else { return nil }
            guard let new = found[OSSL_FUNC_DIGEST_NEWCTX], let free = found[OSSL_FUNC_DIGEST_FREECTX],
                  let initialize = found[OSSL_FUNC_DIGEST_INIT], let update = found[OSSL_FUNC_DIGEST_UPDATE],
                  let finish = found[OSSL_FUNC_DIGEST_FINAL] else { return nil }
            return ProviderFunctions(newContext: unsafeBitCast(new, to: NewContext.self), freeContext: unsafeBitCast(free, to: FreeContext.self),
                                     initialize: unsafeBitCast(initialize, to: Initialize.self), update: unsafeBitCast(update, to: Update.self),
                                     finish: unsafeBitCast(finish, to: Finish.self),
                                     providerContext: OSSL_PROVIDER_get0_provider_ctx(provider))
        }
    }
}
