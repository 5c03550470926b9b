import Dispatch
import LedgerDomain
import LedgerKit
import Synchronization
import Testing

// MARK: - EncryptedMemberTests

/// The stored form of a personal member (`EncryptedMember`, Base64) and `MemberCipher`'s
/// encryption of it: a member opens only on its own line, type, member name and subject.
struct EncryptedMemberTests {
    @Test("Base64 matches RFC 4648's vectors and refuses every non-canonical spelling")
    func base64() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all)) == all)
        for bad in ["Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "Zm-v", "=Zg=", "Zg==Zg=="] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    static let subject = SubjectID("account-a808bd42-6001-5835-a8dc-eaf62aa0980b")!
    static let eventID = "4d9ce88c-c0ce-5627-991e-8977946587f6"

    @Test("the stored member is {subject, nonce, ciphertext} in that order, and parses back")
    func storedForm() throws {
        let member = try EncryptedMember(subject: Self.subject, nonce: Array(0..<12), sealed: Array(repeating: 0xAB, count: 20))
        #expect(JSONWriter.string(member.json)
            == #"{"subject":"account-a808bd42-6001-5835-a8dc-eaf62aa0980b","nonce":"AAECAwQFBgcICQoL","ciphertext":"q6urq6urq6urq6urq6urq6urq6s="}"#)
        #expect(try EncryptedMember(json: member.json) == member)
        func code(_ text: String) -> EncryptedMemberError.Code? {
            do {
                _ = try EncryptedMember(json: try JSONReader.parse(text))
                return nil
            } catch let error as EncryptedMemberError { return error.code } catch { return nil }
        }
        #expect(code(#""ada@example.com""#) == .notEncrypted)
        #expect(code(#"{"nonce":"AAECAwQFBgcICQoL","subject":"address-2026-11-29","ciphertext":"q6urq6urq6urq6urq6urqw=="}"#) == .notEncrypted)
        #expect(code(#"{"subject":"someone","nonce":"AAECAwQFBgcICQoL","ciphertext":"q6urq6urq6urq6urq6urqw=="}"#) == .badSubject)
        #expect(code(#"{"subject":"address-2026-11-29","nonce":"AAECAwQFBgcICQ==","ciphertext":"q6urq6urq6urq6urq6urqw=="}"#) == .badNonce)
        #expect(code(#"{"subject":"address-2026-11-29","nonce":"AAECAwQFBgcICQoL","ciphertext":"q6urq6urq6urq6urq6ur"}"#) == .badCiphertext)
        #expect(EncryptedMember.associatedData(eventID: "e", type: .signInFailed, member: "email", subject: SubjectID("address-2026-11-29")!)
            == Array("e\nSignInFailed\nemail\naddress-2026-11-29".utf8))
    }

    @Test("MemberCipher: a member decrypts with its key on its own line only")
    func memberCipher() throws {
        let random = SeededRandom(seed: 99)
        let key = random.bytes(32)
        let stored = try MemberCipher.encrypt("Ada Lovelace", eventID: Self.eventID, type: .profileWritten, member: "userName",
                                              subject: Self.subject, key: key, random: random)
        #expect(!JSONWriter.string(stored).contains("Ada"))
        #expect(try MemberCipher.decrypt(stored, eventID: Self.eventID, type: .profileWritten, member: "userName", key: key) == "Ada Lovelace")
        func code(_ stored: JSONValue, eventID: String = Self.eventID, type: EventType = .profileWritten, member: String = "userName",
                  key: [UInt8] = key) -> String? {
            do {
                _ = try MemberCipher.decrypt(stored, eventID: eventID, type: type, member: member, key: key)
                return nil
            } catch { return error.code }
        }
        #expect(code(stored, eventID: "5d9ce88c-c0ce-5627-991e-8977946587f6") == "authentication-failed")
        #expect(code(stored, type: .accountCreated) == "authentication-failed")
        #expect(code(stored, member: "email") == "authentication-failed")
        #expect(code(stored, key: random.bytes(32)) == "authentication-failed")
        // Moved to another subject's entry: the subject is in the associated data.
        var object = stored.objectValue!
        object["subject"] = .string("account-0f0e0d0c-0b0a-4908-8706-050403020100")
        #expect(code(.object(object)) == "authentication-failed")
        #expect(code(.string("Ada Lovelace")) == "not-encrypted")
        // Each encryption draws its own nonce.
        let again = try MemberCipher.encrypt("Ada Lovelace", eventID: Self.eventID, type: .profileWritten, member: "userName",
                                             subject: Self.subject, key: key, random: random)
        #expect(again != stored)
    }

    /// Each thread reuses one decryption context: a refused member (wrong key, tampered bytes, an
    /// empty value) leaves nothing behind that changes the next one's outcome, on any thread.
    /// `plaintext` sealed as a member and opened by `MemberCipher.decrypt`.
    private func opened(_ plaintext: [UInt8]) throws -> Result<String, MemberCipherError> {
        let key = [UInt8](repeating: 7, count: 32), subject = SubjectID("address-2026-11-29")!
        let aad = EncryptedMember.associatedData(eventID: "e1", type: .signInFailed, member: "email", subject: subject)
        let nonce = [UInt8](repeating: 3, count: 12)
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        let member = try EncryptedMember(subject: subject, nonce: nonce, sealed: sealed)
        return Result { () throws(MemberCipherError) -> String in
            try MemberCipher.decrypt(member, eventID: "e1", type: .signInFailed, member: "email", key: key)
        }
    }

    @Test("MemberCipher: a plaintext opens to its text, ASCII or not; one that is not UTF-8 is not-text")
    func plaintextsAsText() throws {
        for text in ["someone@example.com", "zoë@exämple.com", "名前@example.jp", "", "a\u{7F}b"] {
            #expect(try opened(Array(text.utf8)).get() == text)
        }
        for bytes: [UInt8] in [[0xFF, 0x61], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0x80]] {
            #expect(throws: MemberCipherError.notText) { try opened(bytes).get() }
        }
    }

    /// Over random plaintexts (ASCII runs, which take the fast path, mixed with valid and broken
    /// multi-byte sequences, of many lengths), a member opens to exactly the text Swift's own UTF-8
    /// validation gives, byte for byte, and is not-text exactly where that validation fails.
    @Test(arguments: 0..<8)
    func plaintextsOpenAsSwiftValidatesThem(seed: Int) throws {
        let random = SeededRandom(seed: UInt64(seed) &+ 1_000)
        let pieces: [[UInt8]] = [[0x61], [0x7F], [0x00], [0x22], [0x5C], [0xC3, 0xA9], [0xE5, 0x90, 0x8D], [0xF0, 0x9F, 0x98, 0x80],
                                 [0xC3], [0x80], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE5, 0x90]]
        for _ in 0..<200 {
            var plaintext: [UInt8] = []
            let length = random.oneIn(10) ? 200 + random.next(200) : random.next(40)
            let broken = random.oneIn(3)
            while plaintext.count < length {
                // Mostly ASCII; a piece from the list now and then (a broken one only in some plaintexts).
                plaintext += random.oneIn(4) ? pieces[random.next(broken ? pieces.count : 8)] : [UInt8(0x20 + random.next(0x5F))]
            }
            let expected = String(validating: plaintext, as: UTF8.self)
            switch try opened(plaintext) {
            case .success(let text):
                #expect(expected != nil && Array(text.utf8) == plaintext, "seed \(seed): \(plaintext)")
            case .failure(let error):
                #expect(expected == nil && error == .notText, "seed \(seed): \(plaintext): \(error)")
            }
        }
    }

    @Test("MemberCipher: a refused member does not change the next one's outcome, on any thread")
    func reusedContexts() throws {
        let random = SeededRandom(seed: 7)
        let keys = (0..<4).map { _ in random.bytes(32) }
        let values = ["", "a", "ada@example.com", String(repeating: "é", count: 300)]
        let stored = try values.enumerated().map { k, value in
            try MemberCipher.encrypt(value, eventID: Self.eventID, type: .profileWritten, member: "userName",
                                     subject: Self.subject, key: keys[k], random: random)
        }
        var tampered = stored[2].objectValue!
        let ciphertext = Base64.decode(tampered["ciphertext"]!.stringValue!)!
        tampered["ciphertext"] = .string(Base64.encode([ciphertext[0] ^ 1] + ciphertext.dropFirst()))
        let damaged = JSONValue.object(tampered)
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var seen: [String] = []
            for round in 0..<200 {
                let k = (round + thread) % 4
                let opened = try? MemberCipher.decrypt(stored[k], eventID: Self.eventID, type: .profileWritten, member: "userName", key: keys[k])
                if opened != values[k] { seen.append("member \(k) opened to \(String(describing: opened))") }
                if (try? MemberCipher.decrypt(stored[k], eventID: Self.eventID, type: .profileWritten, member: "userName",
                                              key: keys[(k + 1) % 4])) != nil { seen.append("member \(k) opened with another key") }
                if (try? MemberCipher.decrypt(damaged, eventID: Self.eventID, type: .profileWritten, member: "userName",
                                              key: keys[2])) != nil { seen.append("a tampered member opened") }
            }
            outcomes.withLock { $0 += seen }
        }
        #expect(outcomes.withLock { $0 }.isEmpty, "\(outcomes.withLock { $0.prefix(3) })")
    }
}
