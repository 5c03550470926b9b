import CCrypt
import CLibcrypto
import LedgerDomain

// MARK: - PasswordHasher

/// yescrypt password hashes through libxcrypt (`$y$…` crypt(3) strings), verified in constant time.
public struct PasswordHasher: Sendable {
    /// libxcrypt's cost parameter (1–11); 0 means libxcrypt's default.
    public let cost: UInt

    /// A hasher with `cost` (0: libxcrypt's default).
    public init(cost: UInt = 0) { self.cost = cost }

    /// The cost from `LEDGER_HASH_COST`, or libxcrypt's default when unset. Throws `AuthError` when invalid.
    public static func fromEnvironment(_ environment: [String: String]) throws -> PasswordHasher {
        guard let text = environment["LEDGER_HASH_COST"], !text.isEmpty else { return PasswordHasher() }
        guard let cost = UInt(text), (1...11).contains(cost) else {
            throw AuthError(.invalidCost, "LEDGER_HASH_COST must be an integer from 1 to 11, not \"\(text)\"")
        }
        return PasswordHasher(cost: cost)
    }

    /// A new yescrypt hash of `password`, prepared by `PasswordRule` (NFC), with a fresh salt from
    /// `random`, marked as made from prepared text (`$nfc$y$…`). A password `PasswordRule` cannot
    /// check (a NUL, bytes that were not UTF-8) is refused, never hashed cut short.
    public func hash(_ password: String, random: any RandomSource) throws -> String {
        guard PasswordRule.isCheckable(password) else { throw AuthError(.hashFailed, "a password with a NUL byte is never hashed") }
        let salt = random.bytes(32)
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let made = salt.withUnsafeBufferPointer { rbytes in
            rbytes.withMemoryRebound(to: CChar.self) { r in
                crypt_gensalt_rn("$y$", cost, r.baseAddress, Int32(r.count), &setting, Int32(setting.count))
            }
        }
        guard made != nil else { throw AuthError(.hashFailed, "libxcrypt could not make a yescrypt salt") }
        let text = try crypt(PasswordRule.prepared(password),
                             setting: String(decoding: setting.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        guard text.hasPrefix("$y$") else { throw AuthError(.hashFailed, "libxcrypt did not produce a yescrypt hash") }
        return PasswordRule.preparedHashMark + text
    }

    /// True when `password` matches `storedHash` (prepared first when the hash is marked as made from
    /// prepared text); the comparison runs in constant time. A password `PasswordRule` cannot check
    /// matches nothing, after the same hashing work.
    public func verify(_ password: String, against storedHash: String) -> Bool {
        let checkable = PasswordRule.isCheckable(password)
        let (text, hash) = PasswordRule.checkInput(checkable ? password : "", against: storedHash)
        guard let computed = try? crypt(text, setting: hash), checkable else { return false }
        let a = Array(computed.utf8), b = Array(hash.utf8)
        guard a.count == b.count else { return false }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }

    private func crypt(_ password: String, setting: String) throws -> String {
        // Zeroed and scrubbed with `OPENSSL_cleanse`: a store the optimizer never drops, and one
        // call (a 32 KiB `initializeMemory` is a loop of generic byte copies in a debug build).
        let data = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<crypt_data>.size, alignment: 16)
        defer {
            OPENSSL_cleanse(data, MemoryLayout<crypt_data>.size)  // scrub
            data.deallocate()
        }
        OPENSSL_cleanse(data, MemoryLayout<crypt_data>.size)
        guard let result = crypt_rn(password, setting, data, Int32(MemoryLayout<crypt_data>.size)) else {
            throw AuthError(.hashFailed, "libxcrypt refused the hash setting")
        }
        let text = String(cString: result)
        guard !text.hasPrefix("*") else { throw AuthError(.hashFailed, "libxcrypt refused the hash setting") }
        return text
    }
}
