import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - AESGCMProviderTests

/// Opening through the provider's own AES-256-GCM functions (`AESGCM.ProviderFunctions`, what
/// reads use) against opening through EVP: the same plaintext for every length and key change, and
/// the same refusal for every tampered byte of tag, ciphertext, nonce, key or associated data.
struct AESGCMProviderTests {
    /// The plaintext `open` gives, or nil when it refuses.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], provider: Bool) -> [UInt8]? {
        sealed.withUnsafeBufferPointer { sealed in
            key.withUnsafeBytes { key in
                nonce.withUnsafeBufferPointer { nonce in
                    aad.withUnsafeBytes { aad in
                        try? AESGCM.open(sealed, key: key, nonce: nonce, associatedData: aad, usingProvider: provider) { Array($0) }
                    }
                }
            }
        }
    }

    @Test("libcrypto's default provider offers the functions, so reads open through them")
    func providerFound() {
        #expect(AESGCM.opensThroughProvider)
    }

    @Test("the provider and EVP open every length to the same plaintext, and both refuse every flipped bit")
    func sameAsEVP() throws {
        let random = SeededRandom(seed: 31)
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 60, 100, 255, 1000] {
            let key = random.bytes(32), plaintext = random.bytes(length), aad = random.bytes(length % 70)
            let (nonce, sealed) = try AESGCM.seal(plaintext, key: key, associatedData: aad, random: random)
            #expect(Self.open(sealed, key: key, nonce: nonce, aad: aad, provider: true) == plaintext)
            #expect(Self.open(sealed, key: key, nonce: nonce, aad: aad, provider: false) == plaintext)
            for index in sealed.indices {
                var bad = sealed
                bad[index] ^= 1 << UInt8(index % 8)
                #expect(Self.open(bad, key: key, nonce: nonce, aad: aad, provider: true) == nil, "byte \(index) of \(length)")
                #expect(Self.open(bad, key: key, nonce: nonce, aad: aad, provider: false) == nil)
            }
            var badNonce = nonce, badKey = key, badAAD = aad + [0]
            badNonce[length % 12] ^= 0x80
            badKey[length % 32] ^= 0x01
            for (k, n, a) in [(key, badNonce, aad), (badKey, nonce, aad), (key, nonce, badAAD)] {
                #expect(Self.open(sealed, key: k, nonce: n, aad: a, provider: true) == nil)
                #expect(Self.open(sealed, key: k, nonce: n, aad: a, provider: false) == nil)
            }
            #expect(Self.open(Array(sealed.dropLast()), key: key, nonce: nonce, aad: aad, provider: true) == nil)
        }
    }

    @Test("a thread's context opens again after a refusal, and after its key changed and changed back")
    func threadContextRecovers() throws {
        let random = SeededRandom(seed: 32)
        let keys = [random.bytes(32), random.bytes(32)]
        var messages: [(key: [UInt8], nonce: [UInt8], sealed: [UInt8], plain: [UInt8])] = []
        for i in 0..<12 {
            let key = keys[i / 3 % 2], plain = random.bytes(20 + i)
            let (nonce, sealed) = try AESGCM.seal(plain, key: key, associatedData: [UInt8(i)], random: random)
            messages.append((key, nonce, sealed, plain))
        }
        for (i, m) in messages.enumerated() {
            var tampered = m.sealed
            tampered[tampered.count - 1] ^= 0xFF
            // The thread's own context (what `open` without `usingProvider` uses): a refusal, then the same message whole.
            let opened = { (sealed: [UInt8]) -> [UInt8]? in
                sealed.withUnsafeBufferPointer { s in
                    m.key.withUnsafeBytes { k in
                        m.nonce.withUnsafeBufferPointer { n in
                            [UInt8(i)].withUnsafeBytes { a in try? AESGCM.open(s, key: k, nonce: n, associatedData: a) { Array($0) } }
                        }
                    }
                }
            }
            #expect(opened(tampered) == nil)
            #expect(opened(m.sealed) == m.plain)
        }
    }
}
