import Foundation
import Testing

// The read commands end to end: the shipped samples replay to `EXPECTED.md`, the `--json`
// shapes carry exactly the documented members, and `--as-of` shows the views of a prefix.

/// The demo section of `Events/samples/EXPECTED.md`: `name → [word → count]`, plus the head.
struct ExpectedDemo {
    var counts: [String: [String: Int]] = [:]
    var events = -1
    var headSeq = -1
    var headHash = ""

    /// Parses the `## demo/events.jsonl` section's `- name: word N, word N …` lines.
    init(markdown: String) throws {
        let section = markdown.components(separatedBy: "## demo/events.jsonl").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        for line in section.split(separator: "\n") where line.hasPrefix("- ") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[line.index(line.startIndex, offsetBy: 2)..<colon].trimmingCharacters(in: .whitespaces)
            var rest = String(line[line.index(after: colon)...])
            var remark = ""
            if let paren = rest.firstIndex(of: "(") {  // a remark in parentheses
                remark = String(rest[rest.index(after: paren)...]).replacingOccurrences(of: ")", with: "")
                rest = String(rest[..<paren])
            }
            switch name {
            case "events":
                events = Int(rest.trimmingCharacters(in: .whitespaces)) ?? -1
            case "sign-ins refused":  // `2 (wrong-password 1, unknown-email 1)`
                counts[name] = Self.pairs(remark).merging(["total": Int(rest.trimmingCharacters(in: .whitespaces)) ?? -1]) { a, _ in a }
            case "head":
                let words = rest.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "`" })
                if let i = words.firstIndex(of: "seq"), i + 1 < words.count { headSeq = Int(words[i + 1]) ?? -1 }
                if let i = words.firstIndex(of: "hash"), i + 1 < words.count { headHash = String(words[i + 1]) }
            default:
                counts[name] = Self.pairs(rest)
            }
        }
        guard events >= 0, headSeq >= 0, headHash.count == 64, counts.count >= 4 else {
            throw SystemTestError("EXPECTED.md demo section not understood: \(section)")
        }
    }

    /// `word N, word N` → `[word: N]`.
    private static func pairs(_ text: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ")
            if words.count == 2, let n = Int(words[1]) { out[String(words[0])] = n }
        }
        return out
    }
}

@Suite struct ReadCommandsCLITests {
    // MARK: - Samples

    @Test func demoSampleReplaysToTheDocumentedViews() throws {
        let expected = try ExpectedDemo(markdown: try readText(Paths.repo("Events/samples/EXPECTED.md")))
        let result = try ledger("replay", Paths.demoLog, "--json", env: fastHashEnvironment)
        #expect(result.status == 0, "\(result)")
        let replay = try parseObject(result.stdout)
        #expect(replay["events"] as? Int == expected.events)
        let head = replay["head"] as? [String: Any]
        #expect(head?["seq"] as? Int == expected.headSeq)
        #expect(head?["hash"] as? String == expected.headHash)

        for view in ["users", "sessions", "images"] {
            let actual = try #require(replay[view] as? [String: Int], "\(view) in \(result.stdout)")
            let documented = try #require(expected.counts[view], "\(view) in EXPECTED.md")
            // Every documented member matches; members the file leaves out (sessions.expired) are 0.
            for (word, count) in documented { #expect(actual[word] == count, "\(view).\(word)") }
            for (word, count) in actual where documented[word] == nil { #expect(count == 0, "\(view).\(word)") }
        }
        let registrations = try #require(replay["registrations"] as? [String: Int])
        let documented = try #require(expected.counts["registrations"])
        for word in ["completed", "rejected", "compensated"] { #expect(registrations[word] == documented[word], "\(word)") }
        // EXPECTED.md's `pending` covers both unfinished outcomes.
        #expect((registrations["compensation-pending"] ?? -1) + (registrations["in-progress"] ?? -1) == documented["pending"])

        // The refused sign-ins, counted from the log's SignInFailed events.
        let signIns = try #require(expected.counts["sign-ins refused"])
        let reasons = try splitLines(try readBytes(Paths.demoLog)).compactMap { line -> String? in
            let event = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            guard event?["type"] as? String == "SignInFailed" else { return nil }
            return (event?["data"] as? [String: Any])?["reason"] as? String
        }
        #expect(reasons.count == signIns["total"])
        for reason in Set(reasons) { #expect(reasons.filter { $0 == reason }.count == signIns[reason], "\(reason)") }
        #expect(signIns.count == Set(reasons).count + 1)
    }

    @Test func demoSampleAuditsClean() throws {
        let demoFolder = Paths.repo("Events/samples/demo")
        let hadLocks = FileManager.default.fileExists(atPath: demoFolder + "/locks")
        let result = try ledger("audit", "--log", Paths.demoLog, "--json", env: fastHashEnvironment)
        #expect(result.status == 0, "\(result)")
        let audit = try parseObject(result.stdout)
        #expect(keys(audit) == ["failedRegistrations", "signInFailures", "accountChanges", "sessionsRevoked", "anomalies"])
        #expect((audit["anomalies"] as? [Any])?.isEmpty == true)
        let failures = audit["signInFailures"] as? [[String: Any]] ?? []
        #expect(failures.compactMap { $0["failures"] as? Int }.reduce(0, +) == 3, "sign-ins refused: 3")
        let failed = audit["failedRegistrations"] as? [[String: Any]] ?? []
        #expect(failed.compactMap { $0["outcome"] as? String } == ["rejected", "rejected", "compensated"])
        #expect(failed.last?["compensations"] as? [String] == ["ImageDeleted", "AccountDeleted"])
        #expect(FileManager.default.fileExists(atPath: demoFolder + "/locks") == hadLocks, "a read command writes nothing")
    }

    // MARK: - JSON shapes

    /// A data folder with a completed sign-up with an image, one without, a compensated one,
    /// a rejected one, a logout and a refused sign-in.
    private func populate(_ dir: LedgerDir) throws -> (alice: String, bob: String) {
        let alice = uniqueEmail("alice"), bob = uniqueEmail("bob")
        try #require(try dir.register(email: alice, username: "Alice", image: samplePNG).status == 0)
        let bobResult = try dir.register(email: bob, username: "Bob")
        try #require(bobResult.status == 0)
        try #require(try dir.register(email: uniqueEmail("carol"), image: samplePNG, env: ["LEDGER_FAILPOINTS": "ProfileWritten=error"]).status == 1)
        try #require(try dir.register(email: "not-an-email").status == 1)
        let session = try #require(try parseObject(bobResult.stdout)["sessionId"] as? String)
        try #require(try dir.run(["logout", "--session", session]).status == 0)
        try #require(try dir.login(email: bob, password: "wrong password").status == 1)
        return (alice, bob)
    }

    @Test func jsonOutputsHaveTheDocumentedMembers() throws {
        try withLedgerDir { dir in
            let (alice, _) = try populate(dir)
            let userKeys: Set = ["uid", "email", "userName", "profileImageName", "createdAt", "status", "emailVerified"]
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            #expect(users.count == 3)
            for row in users { #expect(keys(row) == userKeys) }
            #expect(users.compactMap { $0["status"] as? String } == ["active", "active", "deleted"])

            let sessions = try #require(try dir.json(["sessions"]) as? [[String: Any]])
            #expect(sessions.count == 2)
            for row in sessions { #expect(keys(row) == ["sessionId", "uid", "startedAt", "expiresAt", "endedAt", "status"]) }
            #expect(sessions.compactMap { $0["status"] as? String } == ["active", "ended"])

            let images = try #require(try dir.json(["images"]) as? [[String: Any]])
            #expect(images.count == 2)
            for row in images { #expect(keys(row) == ["imageName", "uid", "contentType", "bytes", "sha256", "storedAt", "status"]) }
            #expect(images.compactMap { $0["status"] as? String } == ["stored", "deleted"])
            #expect(images.first?["contentType"] as? String == "image/png")
            #expect(images.first?["bytes"] as? Int == (try readBytes(samplePNG)).count)

            let audit = try #require(try dir.json(["audit"]) as? [String: Any])
            #expect(keys(audit) == ["failedRegistrations", "signInFailures", "accountChanges", "sessionsRevoked", "anomalies"])
            let failed = try #require(audit["failedRegistrations"] as? [[String: Any]])
            #expect(failed.count == 2)
            for row in failed {
                #expect(keys(row) == ["registration", "startedAt", "email", "outcome", "step", "reason", "compensations"])
            }
            for row in audit["signInFailures"] as? [[String: Any]] ?? [] { #expect(keys(row) == ["email", "failures", "locked"]) }

            let replay = try #require(try dir.json(["replay"]) as? [String: Any])
            #expect(keys(replay) == ["events", "head", "users", "sessions", "images", "registrations", "digest"])
            #expect(keys(replay["digest"]) == ["users", "sessions", "images", "registrations"])
            #expect(keys(replay["head"]) == ["seq", "hash"])
            #expect(keys(replay["users"]) == ["active", "pending", "deleted", "disabled"])
            #expect(keys(replay["sessions"]) == ["active", "ended", "expired"])
            #expect(keys(replay["images"]) == ["stored", "deleted"])
            #expect(keys(replay["registrations"]) == ["completed", "rejected", "compensated", "compensation-pending", "in-progress"])
            #expect(replay["events"] as? Int == (try dir.events()).count)
            #expect(replay["users"] as? [String: Int] == ["active": 2, "pending": 0, "deleted": 1, "disabled": 0])
            #expect(replay["registrations"] as? [String: Int] ==
                    ["completed": 2, "rejected": 1, "compensated": 1, "compensation-pending": 0, "in-progress": 0])

            // `user EMAIL` and `user UID`: one object.
            let one = try #require(try dir.json(["user", alice.uppercased()]) as? [String: Any])
            #expect(keys(one) == userKeys)
            #expect(one["email"] as? String == alice)
            #expect(one["userName"] as? String == "Alice")
            let uid = try #require(one["uid"] as? String)
            let byUID = try #require(try dir.json(["user", uid]) as? [String: Any])
            #expect(byUID["email"] as? String == alice)
            let unknown = try dir.run(["user", uniqueEmail("nobody"), "--json"])
            #expect(unknown.status == 1, "\(unknown)")
            #expect(!unknown.stdout.isEmpty && unknown.stdoutIsAFailuresOnly, "\(unknown)")
            #expect(unknown.stderr.contains("no user"))
        }
    }

    // MARK: - --as-of

    /// uid → status after the first `count` lines of the log, folded here without ledger's code.
    private func statuses(_ events: [[String: Any]], upTo count: Int) -> [String: String] {
        var out: [String: String] = [:]
        for event in events.prefix(count) {
            guard let data = event["data"] as? [String: Any], let uid = data["uid"] as? String else { continue }
            switch event["type"] as? String {
            case "AccountCreated": out[uid] = "pending"
            case "ProfileWritten": if out[uid] != "deleted" { out[uid] = "active" }
            case "AccountDeleted": out[uid] = "deleted"
            default: break
            }
        }
        return out
    }

    @Test func asOfSeqShowsTheViewsAfterThatEvent() throws {
        try withLedgerDir { dir in
            let (alice, _) = try populate(dir)
            let events = try dir.events()
            for n in 0...events.count {
                let users = try dir.json(["users", "--as-of", String(n)])
                #expect(userStatuses(users) == statuses(events, upTo: n), "as of \(n)")
            }
            let created = try #require(events.firstIndex { ($0["data"] as? [String: Any])?["email"] as? String == alice })
            let aliceUID = try #require((events[created]["data"] as? [String: Any])?["uid"] as? String)
            #expect(events[created]["seq"] as? Int == created + 1)
            #expect(userStatuses(try dir.json(["users", "--as-of", String(created + 1)]))[aliceUID] == "pending")
            #expect(userStatuses(try dir.json(["users"]))[aliceUID] == "active")
            let replay = try #require(try dir.json(["replay", "--as-of", "3"]) as? [String: Any])
            #expect((replay["head"] as? [String: Any])?["seq"] as? Int == 3)
            #expect(replay["events"] as? Int == 3)
            let bad = try dir.run(["users", "--as-of", "yesterday"])
            #expect(bad.status == 2, "\(bad)")
        }
    }

    @Test func asOfTimeShowsTheViewsAtThatInstant() throws {
        try withLedgerDir { dir in
            _ = try populate(dir)
            let events = try dir.events()
            let times = events.compactMap { $0["at"] as? String }
            #expect(times.count == events.count)
            // Before the first event: nothing.
            #expect((try dir.json(["users", "--as-of", "2000-01-01T00:00:00.000Z"]) as? [Any])?.isEmpty == true)
            for time in Set(times).sorted() {
                // RFC 3339 with 3 fraction digits sorts as text; the prefix is every event at or before `time`.
                let count = times.filter { $0 <= time }.count
                let byTime = try dir.json(["users", "--as-of", time])
                #expect(userStatuses(byTime) == statuses(events, upTo: count), "as of \(time)")
                #expect(userStatuses(byTime) == userStatuses(try dir.json(["users", "--as-of", String(count)])))
            }
            // Sessions expire: as of their expiry they are `expired`, a millisecond before `active`.
            let sessions = try #require(try dir.json(["sessions"]) as? [[String: Any]])
            let open = try #require(sessions.first { $0["status"] as? String == "active" })
            let expiresAt = try #require(open["expiresAt"] as? String)
            let later = try #require(try dir.json(["sessions", "--as-of", expiresAt]) as? [[String: Any]])
            #expect(later.first { $0["sessionId"] as? String == open["sessionId"] as? String }?["status"] as? String == "expired")
            let replay = try #require(try dir.json(["replay", "--as-of", expiresAt]) as? [String: Any])
            #expect(replay["sessions"] as? [String: Int] == ["active": 0, "ended": 1, "expired": 1])
        }
    }
}
