import LedgerKit
import Testing

// MARK: - Ed25519Tests

/// Ed25519 through libcrypto's EVP one-shot calls: RFC 8032 §7.1 tests 1 and 2 (public key and
/// signature from the seed, byte for byte), determinism, and every tampering refused without a trap.
@Suite struct Ed25519Tests {
    /// Bytes of a hex string.
    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.utf8).makeIterator()
        while let a = chars.next(), let b = chars.next() { out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16)!) }
        return out
    }

    /// RFC 8032 §7.1: seed, public key, message, signature.
    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test("RFC 8032 tests 1 and 2: the public key and signature of each seed, byte for byte", arguments: 0..<2)
    func knownAnswers(index: Int) throws {
        let vector = Self.vectors[index]
        let seed = Self.hex(vector.seed), message = Self.hex(vector.message)
        #expect(try Ed25519.publicKey(seed: seed) == Self.hex(vector.publicKey))
        let signature = try Ed25519.sign(message, seed: seed)
        #expect(signature == Self.hex(vector.signature))
        #expect(Ed25519.verify(signature, of: message, publicKey: Self.hex(vector.publicKey)))
    }

    @Test("a flipped bit in the message, signature or key fails verification; wrong sizes are false, not traps")
    func tampering() throws {
        let seed = Self.hex(Self.vectors[1].seed), publicKey = Self.hex(Self.vectors[1].publicKey)
        let message: [UInt8] = Array("a signed head\n".utf8)
        let signature = try Ed25519.sign(message, seed: seed)
        #expect(try Ed25519.sign(message, seed: seed) == signature)  // deterministic
        var changed = message; changed[0] ^= 1
        #expect(!Ed25519.verify(signature, of: changed, publicKey: publicKey))
        for byte in [0, 31, 32, 63] {
            var bad = signature; bad[byte] ^= 0x40
            #expect(!Ed25519.verify(bad, of: message, publicKey: publicKey))
        }
        var otherKey = publicKey; otherKey[5] ^= 1
        #expect(!Ed25519.verify(signature, of: message, publicKey: otherKey))
        #expect(!Ed25519.verify(Array(signature.dropLast()), of: message, publicKey: publicKey))
        #expect(!Ed25519.verify(signature, of: message, publicKey: Array(publicKey.dropLast())))
        #expect(!Ed25519.verify(signature, of: message, publicKey: [UInt8](repeating: 0xFF, count: 32)))
        #expect(throws: Ed25519Error.self) { try Ed25519.sign(message, seed: [1, 2, 3]) }
        #expect(throws: Ed25519Error.self) { try Ed25519.publicKey(seed: []) }
    }

    @Test("a non-canonical S (S + group order) is refused: a signature has one spelling")
    func nonCanonicalS() throws {
        let seed = Self.hex(Self.vectors[0].seed), publicKey = Self.hex(Self.vectors[0].publicKey)
        let signature = try Ed25519.sign([], seed: seed)
        // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
        let order = Self.hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var s = Array(signature[32...]), carry = 0
        for i in 0..<32 {
            let sum = Int(s[i]) + Int(order[i]) + carry
            s[i] = UInt8(sum & 0xFF); carry = sum >> 8
        }
        #expect(!Ed25519.verify(Array(signature[..<32]) + s, of: [], publicKey: publicKey))
    }
}
