import CLibcrypto

// MARK: - ProviderDispatch

/// The functions of one algorithm of a libcrypto provider, from its dispatch table
/// (`OSSL_PROVIDER_query_operation`, `core_dispatch.h`), for the hot paths that call the
/// provider's own implementation without EVP's per-call work (`SHA256.ProviderFunctions`,
/// `AESGCM.ProviderFunctions`).
enum ProviderDispatch {
    /// A function of the table, to be cast to its own signature.
    typealias Function = @convention(c) () -> Void

    /// The functions, by id, of the algorithm of `provider` for `operation` (`OSSL_OP_*`) that has
    /// `name` as one of its names (e.g. "SHA2-256:SHA-256:SHA256:…"); nil when it offers none.
    static func functions(of provider: OpaquePointer, operation: Int32, named name: String) -> [Int32: Function]? {
        var noStore: Int32 = 0
        guard var algorithm = OSSL_PROVIDER_query_operation(provider, operation, &noStore) else { return nil }
        defer { OSSL_PROVIDER_unquery_operation(provider, operation, algorithm) }
        while let names = algorithm.pointee.algorithm_names {
            if String(cString: names).split(separator: ":").contains(Substring(name)) {
                guard var entry = algorithm.pointee.implementation else { return nil }
                var found: [Int32: Function] = [:]
                while entry.pointee.function_id != 0 {
                    if let function = entry.pointee.function { found[entry.pointee.function_id] = function }
                    entry += 1
                }
                return found
            }
            algorithm += 1
        }
        return nil
    }
}
