import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - AESGCMTests

/// AES-256-GCM through EVP: the known answers of the GCM specification (McGrew and Viega, "The
/// Galois/Counter Mode of Operation", test cases 13–16, the 256-bit key cases), round trips, every
/// way of tampering ending in a typed error, and agreement with Python's `cryptography` AESGCM.
struct AESGCMTests {
    /// Bytes of a hex string.
    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.utf8).makeIterator()
        while let a = chars.next(), let b = chars.next() { out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16)!) }
        return out
    }

    /// One known answer: key, nonce, plaintext, associated data, ciphertext, tag.
    struct Vector: Sendable, CustomStringConvertible {
        let name: String, key: String, nonce: String, plaintext: String, aad: String, ciphertext: String, tag: String
        var description: String { name }
    }

    static let k15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let p15 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let c15 = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    static let vectors = [
        Vector(name: "test case 13 (empty)", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: "", aad: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "test case 14 (one zero block)", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: String(repeating: "00", count: 16), aad: "", ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
               tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "test case 15 (four blocks)", key: k15, nonce: "cafebabefacedbaddecaf888", plaintext: p15, aad: "",
               ciphertext: c15, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "test case 16 (60 bytes, associated data)", key: k15, nonce: "cafebabefacedbaddecaf888",
               plaintext: String(p15.prefix(120)), aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
               ciphertext: String(c15.prefix(120)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test("the GCM specification's AES-256 test cases seal and open to their known answers", arguments: vectors)
    func knownAnswers(_ v: Vector) throws {
        let sealed = try AESGCM.seal(Self.hex(v.plaintext), key: Self.hex(v.key), nonce: Self.hex(v.nonce), associatedData: Self.hex(v.aad))
        #expect(sealed == Self.hex(v.ciphertext) + Self.hex(v.tag))
        let opened = try AESGCM.open(sealed, key: Self.hex(v.key), nonce: Self.hex(v.nonce), associatedData: Self.hex(v.aad))
        #expect(opened == Self.hex(v.plaintext))
    }

    @Test("a sealed message opens to its plaintext, for lengths across block boundaries, each with its own nonce")
    func roundTrips() throws {
        let random = SeededRandom(seed: 28)
        let key = random.bytes(32)
        var nonces = Set<[UInt8]>()
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 100, 1000, 4099] {
            let plaintext = random.bytes(length), aad = random.bytes(length % 40)
            let (nonce, sealed) = try AESGCM.seal(plaintext, key: key, associatedData: aad, random: random)
            #expect(nonce.count == 12 && sealed.count == length + 16)
            #expect(nonces.insert(nonce).inserted)
            #expect(try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: aad) == plaintext)
            if length >= 16 { #expect(Array(sealed.prefix(length)) != plaintext) }
        }
        // The system CSPRNG gives a different nonce, so a different ciphertext, each time.
        let a = try AESGCM.seal(Array("same".utf8), key: key, associatedData: [], random: SecureRandom())
        let b = try AESGCM.seal(Array("same".utf8), key: key, associatedData: [], random: SecureRandom())
        #expect(a.nonce != b.nonce && a.sealed != b.sealed)
    }

    @Test("a wrong key, nonce or associated data, a flipped bit anywhere, or a cut message fails with a typed error")
    func tampering() throws {
        let random = SeededRandom(seed: 1)
        let key = random.bytes(32), aad = Array("event\nAccountCreated\nemail\naccount-x".utf8)
        let plaintext = Array("ada@example.com".utf8)
        let (nonce, sealed) = try AESGCM.seal(plaintext, key: key, associatedData: aad, random: random)
        func refusal(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> AESGCMError.Code? {
            do {
                _ = try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: aad)
                return nil
            } catch { return error.code }
        }
        #expect(refusal(sealed, key: key, nonce: nonce, aad: aad) == nil)
        var otherKey = key
        otherKey[31] ^= 1
        #expect(refusal(sealed, key: otherKey, nonce: nonce, aad: aad) == .authenticationFailed)
        var otherNonce = nonce
        otherNonce[0] ^= 0x80
        #expect(refusal(sealed, key: key, nonce: otherNonce, aad: aad) == .authenticationFailed)
        #expect(refusal(sealed, key: key, nonce: nonce, aad: aad + [0]) == .authenticationFailed)
        #expect(refusal(sealed, key: key, nonce: nonce, aad: []) == .authenticationFailed)
        for bit in 0..<(sealed.count * 8) {
            var flipped = sealed
            flipped[bit / 8] ^= 1 << (bit % 8)
            #expect(refusal(flipped, key: key, nonce: nonce, aad: aad) == .authenticationFailed, "bit \(bit)")
        }
        #expect(refusal(Array(sealed.dropLast()), key: key, nonce: nonce, aad: aad) == .authenticationFailed)
        #expect(refusal(Array(sealed.prefix(15)), key: key, nonce: nonce, aad: aad) == .tooShort)
        #expect(refusal(sealed, key: Array(key.prefix(16)), nonce: nonce, aad: aad) == .invalidKey)
        #expect(refusal(sealed, key: key, nonce: nonce + [0], aad: aad) == .invalidNonce)
        #expect(throws: AESGCMError.self) { try AESGCM.seal(plaintext, key: [], nonce: nonce, associatedData: aad) }
    }

    @Test("Python's cryptography AESGCM opens what ledger seals, and ledger opens what it seals")
    func agreesWithPython() throws {
        let random = SeededRandom(seed: 7)
        let key = random.bytes(32), aad = Array("id\nSignInFailed\nemail\naddress-2026-11-29".utf8)
        let plaintext = Array("grüße@example.com".utf8)
        let (nonce, sealed) = try AESGCM.seal(plaintext, key: key, associatedData: aad, random: random)
        let hex = { (bytes: [UInt8]) in Identifiers.hex(bytes) }
        let script = """
            import sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, nonce, aad, sealed, plain = (bytes.fromhex(a) for a in sys.argv[1:6])
            g = AESGCM(key)
            assert g.decrypt(nonce, sealed, aad) == plain, "python opened other bytes"
            n2 = bytes(range(12))
            print(n2.hex() + " " + g.encrypt(n2, plain, aad).hex())
            """
        let result = try run(Paths.python3, ["-c", script, hex(key), hex(nonce), hex(aad), hex(sealed), hex(plaintext)])
        #expect(result.status == 0, "\(result)")
        let parts = result.stdout.split(separator: " ").map { Self.hex(String($0.trimmingCharacters(in: .whitespacesAndNewlines))) }
        try #require(parts.count == 2)
        #expect(try AESGCM.open(parts[1], key: key, nonce: parts[0], associatedData: aad) == plaintext)
        #expect(try AESGCM.seal(plaintext, key: key, nonce: parts[0], associatedData: aad) == parts[1])
    }
}
