@testable import LedgerKit
import LedgerDomain
import Testing

// MARK: - SHA256ContextTests

/// The reusable SHA-256 context that hashes each line: through the provider's own functions it
/// gives FIPS 180's known answers and, for every length around the block and padding boundaries,
/// the digest EVP gives, however many inputs one context hashes in a row.
struct SHA256ContextTests {
    /// The provider's functions are found on this machine's libcrypto (else every context is EVP's,
    /// and the comparison below would compare EVP with itself).
    @Test func theProvidersFunctionsAreFound() {
        #expect(SHA256.ProviderFunctions.shared != nil)
        #expect(SHA256Context().usesProvider)
        #expect(!SHA256Context(usingProvider: false).usesProvider)
    }

    /// FIPS 180-2's examples: "abc", the 448-bit message, and the empty string.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownAnswers(message: String, hex: String) {
        let context = SHA256Context()
        for _ in 0..<3 {  // the same context, initialised again each time
            let digest = Array(message.utf8).withUnsafeBytes { context.digest($0) }
            #expect(digest.hex == hex)
        }
    }

    /// Random inputs of every length from 0 to 300 bytes and some longer ones, one provider context
    /// and one EVP context each hashing all of them in turn: the same digests, and the one-shot
    /// `SHA256.digest`'s too.
    @Test func theProviderPathAndEVPAgree() {
        var random = SystemRandomNumberGenerator()
        let provider = SHA256Context(), evp = SHA256Context(usingProvider: false)
        for length in Array(0...300) + [1_000, 4_096, 65_537] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.withUnsafeBytes { raw in
                let fromProvider = provider.digest(raw), fromEVP = evp.digest(raw)
                #expect(fromProvider == fromEVP, "length \(length)")
                #expect(fromProvider.hex == SHA256.hex(raw), "length \(length)")
            }
        }
    }
}
