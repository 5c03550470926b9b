import CLibcrypto
import LedgerDomain

// MARK: - SHA256

/// SHA-256 through OpenSSL's EVP interface (libcrypto), never a hand-written primitive.
public enum SHA256 {
    /// The algorithm, fetched from the provider once per process: `EVP_sha256()` makes every
    /// `EVP_Digest` fetch it again (a provider lookup costing more than hashing a short line).
    /// Fetched algorithms are immutable and may be shared by threads.
    nonisolated(unsafe) static let algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("libcrypto has no SHA-256") }
        return algorithm
    }()

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            digest(bytes, into: out.baseAddress!)
            count = 32
        }
    }

    /// Writes the 32-byte digest of `bytes` at `out`.
    public static func digest(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) {
        var length: UInt32 = 0
        let ok = EVP_Digest(bytes.baseAddress, bytes.count, out, &length, algorithm, nil)
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
    }

    /// Lowercase hex SHA-256 of `bytes` (the hot path of every verified line: no intermediate array).
    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            self.digest(bytes, into: digest.baseAddress!)
            return Identifiers.hex(UnsafeBufferPointer(digest))
        }
    }

    /// Lowercase hex SHA-256 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { hex($0) } }

    /// Lowercase hex SHA-256 of a string's UTF-8 bytes.
    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }
}

// MARK: - SHA256Stream

/// Incremental SHA-256 for large inputs (files, images), through EVP_MD_CTX.
public final class SHA256Stream {
    private let context: OpaquePointer

    /// A fresh digest context.
    public init() {
        context = EVP_MD_CTX_new()
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex failed")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "EVP_DigestUpdate failed")
    }

    /// The lowercase hex digest of everything added.
    public func finalize() -> String {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return Identifiers.hex(out)
    }
}

// MARK: - SHA256Context

/// A reusable SHA-256 context for one thread: digests many short inputs without allocating a
/// context for each (what `EVP_Digest` does per call, and `EVP_DigestInit_ex` on OpenSSL 3.0): the
/// provider's own SHA-256 state, made once and initialised again per input
/// (`SHA256.ProviderFunctions`), or an EVP context when the provider's functions are not found.
public final class SHA256Context {
    private enum State {
        case provider(SHA256.ProviderFunctions, UnsafeMutableRawPointer)
        case evp(OpaquePointer)
    }

    private let state: State
    /// The process's fetched SHA-256 (`SHA256.algorithm`), never freed.
    private let algorithm = SHA256.algorithm

    /// A fresh context.
    public convenience init() { self.init(usingProvider: true) }

    /// A fresh context; `usingProvider: false` takes the EVP path (the tests compare the two).
    init(usingProvider: Bool) {
        if usingProvider, let functions = SHA256.ProviderFunctions.shared, let state = functions.newContext(functions.providerContext) {
            self.state = .provider(functions, state)
            return
        }
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto cannot make a digest context") }
        state = .evp(context)
    }

    deinit {
        switch state {
        case .provider(let functions, let context): functions.freeContext(context)  // cleanses the state
        case .evp(let context): EVP_MD_CTX_free(context)
        }
    }

    /// True when the provider's functions serve this context (for the tests).
    var usesProvider: Bool { if case .provider = state { true } else { false } }

    /// SHA-256 of `bytes`.
    public func digest(_ bytes: UnsafeRawBufferPointer) -> Digest32 {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { out in
            let ok: Bool
            switch state {
            case .provider(let functions, let context):
                var length = 0
                ok = functions.initialize(context, nil) == 1
                    && (bytes.count == 0 || functions.update(context, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count) == 1)
                    && functions.finish(context, out.baseAddress, &length, 32) == 1 && length == 32
            case .evp(let context):
                var length: UInt32 = 0
                ok = EVP_DigestInit_ex(context, algorithm, nil) == 1 && EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
                    && EVP_DigestFinal_ex(context, out.baseAddress, &length) == 1 && length == 32
            }
            precondition(ok, "SHA-256 failed")
            return Digest32(bytes: UnsafeRawBufferPointer(out))
        }
    }
}
