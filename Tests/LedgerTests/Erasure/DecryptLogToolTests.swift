import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - DecryptLogToolTests

/// `Events/tools/decrypt_log.py`, the third party's decryption in a few lines of Python: given a
/// small data version 2 log whose personal members `MemberCipher` encrypted under `KeyStore` keys,
/// it prints the plaintexts, shows an erased subject's members as null with `"erased": true`, and
/// `verify_log.py` still verifies the chain with no key at all.
struct DecryptLogToolTests {
    /// One event of the log: its type, stream id and `data`, personal members in plaintext.
    typealias Event = (type: EventType, data: JSONObject)

    /// Writes `events` as a chained log (`v` 2 on the types with personal members, encrypted per
    /// `PersonalMembers`; `v` 1 on the others, as ledger writes them) to `dir/events.jsonl`, with
    /// their keys in `dir/events.keys`; returns the log's path.
    static func writeLog(_ events: [Event], in dir: String, holder: (String) -> UUIDBits?) throws -> String {
        let store = try KeyStore(directory: dir)
        let random = SeededRandom(seed: 2028)
        var head = Head.empty, bytes: [UInt8] = []
        let at = Timestamp(rfc3339: "2026-11-29T10:00:00.000Z")!
        for (n, event) in events.enumerated() {
            let id = Fixtures.uuid(900 + n)
            var data = event.data
            if let rule = PersonalMembers.rule(for: event.type),
               let subject = PersonalMembers.subject(of: event.type, data: data, at: at, holder: holder) {
                let key = try store.createKey(for: subject, random: random)
                for member in rule.members {
                    guard let value = data[member]?.stringValue else { continue }
                    data[member] = try MemberCipher.encrypt(value, eventID: id, type: event.type, member: member, subject: subject,
                                                            key: key, random: random)
                }
            }
            let body = LineCodec.body(seq: head.seq + 1, id: id, at: at, type: event.type.rawValue,
                                      v: DataVersions.written(event.type, dataVersion: 2),
                                      stream: Fixtures.stream(for: event.type, n), data: data, prev: head.hash)
            let hash = SHA256.hex(body)
            bytes += LineCodec.line(body: body, hash: hash)
            head = Head(seq: head.seq + 1, hash: hash)
        }
        let path = FileSystem.join(dir, "events.jsonl")
        try writeBytes(bytes, to: path)
        return path
    }

    static let ada = UUIDBits(uuid: "a808bd42-6001-5835-a8dc-eaf62aa0980b")!
    static let bob = UUIDBits(uuid: "0f0e0d0c-0b0a-4908-8706-050403020100")!

    @Test("decrypt_log.py prints the members MemberCipher encrypted, an erased subject's as null with erased, and the chain verifies keyless")
    func decryptsWhatLedgerEncrypted() throws {
        try withTempDirectory { dir in
            let events: [Event] = [
                (.accountCreated, JSONObject([("uid", .string(Self.ada.uuidString)), ("email", .string("ada@example.com")),
                                              ("passwordHash", .string("$nfc$y$j9T$salt$hash"))])),
                (.profileWritten, JSONObject([("uid", .string(Self.ada.uuidString)), ("email", .string("ada@example.com")),
                                              ("userName", .string("Ada Lovelace — „ü“")), ("profileImageName", .null),
                                              ("createdAt", .string("2026-11-29T10:00:00.000Z"))])),
                (.accountCreated, JSONObject([("uid", .string(Self.bob.uuidString)), ("email", .string("bob@example.com")),
                                              ("passwordHash", .string("$y$j9T$bobsalt$bobhash"))])),
                (.signInFailed, JSONObject([("email", .string("stranger@example.com")), ("reason", .string("unknown-email"))])),
                (.signInFailed, JSONObject([("email", .string("ada@example.com")), ("reason", .string("wrong-password"))])),
                (.sessionEnded, JSONObject([("sessionId", .string(Fixtures.uuid(5))), ("uid", .string(Self.ada.uuidString)),
                                            ("reason", .string("logout"))])),
            ]
            let log = try Self.writeLog(events, in: dir) { $0 == "ada@example.com" ? Self.ada : nil }
            let keysPath = FileSystem.join(dir, "events.keys")
            let text = try readText(log)
            for secret in ["ada@example.com", "Ada Lovelace", "$nfc$y$", "bob@example.com", "stranger@example.com"] {
                #expect(!text.contains(secret), "the log holds \(secret) in plaintext")
            }
            try KeyStore(directory: dir).erase(subject: .account(Self.bob))

            let result = try pythonTool("decrypt_log.py", [log, keysPath])
            #expect(result.status == 0, "\(result)")
            let lines = try result.stdoutLines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            try #require(lines.count == 6)
            let data = lines.map { $0["data"] as? [String: Any] ?? [:] }
            #expect(data[0]["email"] as? String == "ada@example.com")
            #expect(data[0]["passwordHash"] as? String == "$nfc$y$j9T$salt$hash")
            #expect(data[1]["userName"] as? String == "Ada Lovelace — „ü“")
            #expect(data[1]["profileImageName"] is NSNull && data[1]["erased"] == nil)
            #expect(data[2]["email"] is NSNull && data[2]["passwordHash"] is NSNull && data[2]["erased"] as? Bool == true)
            #expect(data[3]["email"] as? String == "stranger@example.com")
            #expect(data[4]["email"] as? String == "ada@example.com")  // held by Ada's account: her subject
            #expect(data[5]["reason"] as? String == "logout")
            #expect(lines.map { $0["id"] as? String } == (0..<6).map { Fixtures.uuid(900 + $0) })
            #expect(!result.stdout.contains("bob@example.com"))

            let verified = try pythonTool("verify_log.py", [log])
            #expect(verified.status == 0 && verified.stdout.hasPrefix("ok 6 6 "), "\(verified)")
        }
    }

    @Test("decrypt_log.py refuses a member moved to another line, and says a key missing from the store is missing")
    func refusals() throws {
        try withTempDirectory { dir in
            let events: [Event] = [
                (.emailVerified, JSONObject([("uid", .string(Self.ada.uuidString)), ("email", .string("ada@example.com"))])),
                (.emailVerified, JSONObject([("uid", .string(Self.ada.uuidString)), ("email", .string("ada2@example.com"))])),
            ]
            let log = try Self.writeLog(events, in: dir) { _ in nil }
            var lines = try readText(log).split(separator: "\n").map(String.init)
            // Line 2's ciphertext moved onto line 1 (re-hashed, so only the decryption can tell).
            let member = { (line: String) in String(line[line.range(of: #""email":"#)!.upperBound..<line.range(of: #"},"prev""#)!.lowerBound]) + "}" }
            let moved = String(decoding: try rehashed(lines[0]) { $0.replacingOccurrences(of: member(lines[0]), with: member(lines[1])) },
                               as: UTF8.self)
            lines[0] = String(moved.dropLast())
            let movedLog = FileSystem.join(dir, "moved.jsonl")
            try writeBytes(Array((lines.joined(separator: "\n") + "\n").utf8), to: movedLog)
            let refused = try pythonTool("decrypt_log.py", [movedLog, FileSystem.join(dir, "events.keys")])
            #expect(refused.status == 1 && refused.stderr.contains("line 1: a member does not decrypt"), "\(refused)")

            let empty = FileSystem.join(dir, "empty")
            try FileSystem.makeDirectories(empty)
            _ = try KeyStore(directory: empty)
            let missing = try pythonTool("decrypt_log.py", [log, FileSystem.join(empty, "events.keys")])
            #expect(missing.status == 1 && missing.stdout.contains(#""missingKey":true"#), "\(missing)")
        }
    }

    /// The section of Events/README.md on data version 2.
    static func draftSection() throws -> String {
        let readme = try readText(Paths.repo("Events/README.md"))
        return try #require(readme.components(separatedBy: "\n## ").first { $0.hasPrefix("Log format data version 2") })
    }

    @Test("Events/README.md's table of personal members is PersonalMembers', and its few lines of Python decrypt a member")
    func readme() throws {
        let section = try Self.draftSection()
        var listed: [String: [String]] = [:]
        for row in section.split(separator: "\n") where row.hasPrefix("| ") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = EventType(rawValue: cells[0]) else { continue }
            listed[type.rawValue] = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        for type in EventType.allCases {
            #expect(listed[type.rawValue] ?? [] == PersonalMembers.rule(for: type)?.members ?? [], "\(type.rawValue)")
        }
        let blocks = section.components(separatedBy: "```")
        let snippet = try #require(blocks.first { $0.hasPrefix("python\n") && $0.contains("def decrypt_member") }).dropFirst(7)
        try withTempDirectory { dir in
            let events: [Event] = [(.emailChanged, JSONObject([("uid", .string(Self.ada.uuidString)), ("email", .string("new@example.com")),
                                                               ("previousEmail", .string("old@example.com"))]))]
            let log = try Self.writeLog(events, in: dir) { _ in nil }
            let key = try #require(try KeyStore(directory: dir).key(for: .account(Self.ada)))
            let script = snippet + """
                import json, sys
                line = json.loads(open(sys.argv[1]).read())
                print(decrypt_member(line, "previousEmail", bytes.fromhex(sys.argv[2])))
                """
            let result = try run(Paths.python3, ["-c", String(script), log, Identifiers.hex(key)])
            #expect(result.status == 0 && result.stdout == "old@example.com\n", "\(result)")
        }
    }
}
