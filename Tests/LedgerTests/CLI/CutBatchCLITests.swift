import Foundation
import Testing

// Issue 27 item 13, through the built `ledger`: a power cut during an append's sync can leave a
// prefix of its batch as whole lines. Each line of a batch of two or more says `"batch":[k,n]`, so
// a log that ends at line k < n of a batch ends inside a batch cut short: not part of the log
// (readers leave it out, `verify` calls it a torn tail), and the next writer moves it aside before
// appending. Simulated here as the issue found it: the command runs, then the log is cut back to
// the batch's first line (and the writers' index dropped: after a reboot it is distrusted anyway).

@Suite struct CutBatchCLITests {
    static let password = "correct horse 1"

    /// `line` as `events.jsonl.broken` keeps it: the values of its `ciphertext`, `hash` and `prev` members left out.
    static func withoutCiphertexts(_ line: [UInt8]) -> [UInt8] {
        Array(String(decoding: line, as: UTF8.self).replacing(/"(ciphertext|hash|prev)":"[^"\n]*/) { #""\#($0.output.1)":""# }.utf8)
    }

    /// The first ciphertext value of `line` (a run no kept copy may hold).
    static func ciphertextRun(_ line: [UInt8]) throws -> String {
        let text = String(decoding: line, as: UTF8.self)
        let match = try #require(text.firstMatch(of: /"ciphertext":"([^"]+)"/))
        return String(match.output.1)
    }

    /// An account with a profile image and two active sessions (register's and a login's).
    static func accountWithTwoSessions(_ dir: LedgerDir) throws -> (email: String, uid: String, image: String, sessions: Set<String>) {
        let email = uniqueEmail("cut")
        let registered = try dir.register(email: email, password: password, image: samplePNG)
        try #require(registered.status == 0, "\(registered)")
        let output = try parseObject(registered.stdout)
        let uid = try #require(output["uid"] as? String)
        let image = try #require(output["profileImageName"] as? String)
        let login = try dir.login(email: email, password: password)
        try #require(login.status == 0, "\(login)")
        let sessions = try activeSessions(dir, uid: uid)
        try #require(sessions.count == 2)
        return (email, uid, image, sessions)
    }

    static func activeSessions(_ dir: LedgerDir, uid: String) throws -> Set<String> {
        let rows = try dir.json(["sessions", "--active"]) as? [[String: Any]] ?? []
        return Set(rows.filter { $0["uid"] as? String == uid }.compactMap { $0["sessionId"] as? String })
    }

    /// Cuts the log right after the line of `type` (the first of its batch, which must have `count`
    /// lines); returns that line's 1-based number and its bytes.
    static func cutAfterFirstLine(of type: String, batchOf count: Int, _ dir: LedgerDir) throws -> (number: Int, line: [UInt8]) {
        let events = try dir.events()
        let index = try #require(events.firstIndex { $0["type"] as? String == type })
        #expect(events[index]["batch"] as? [Int] == [1, count], "\(events[index])")
        #expect(events[index...].count == count, "the batch is the log's last append")
        let line = splitLines(try dir.logBytes())[index]
        try dir.cutLog(keepingLines: index + 1)
        return (index + 1, line)
    }

    /// `verify --json` and the independent verifier both call the cut batch at line `number` a torn tail.
    static func expectTornTail(at number: Int, batchOf count: Int, _ dir: LedgerDir) throws {
        let verify = try dir.run(["verify", "--json"])
        #expect(verify.status == 1, "a torn tail is reported as such: \(verify)")
        let report = try parseObject(verify.stdout)
        let problems = report["problems"] as? [[String: Any]] ?? []
        #expect(problems.count == 1 && problems.first?["kind"] as? String == "torn-tail" && problems.first?["line"] as? Int == number,
                "\(verify.stdout)")
        #expect((problems.first?["message"] as? String)?.contains("the log ends inside a batch") == true)
        #expect((report["head"] as? [String: Any])?["seq"] as? Int == number - 1, "the intact log ends before the batch")
        let python = try pythonTool("verify_log.py", [dir.logPath])
        #expect(python.status == 1)
        #expect(python.stdoutLines == ["bad line \(number): the log ends inside a batch of \(count) lines (a cut batch: torn tail)"])
    }

    @Test func aChangePasswordCutAfterItsFirstLineChangesNothing() throws {
        try withLedgerDir { dir in
            let account = try Self.accountWithTwoSessions(dir)
            let before = try dir.logBytes()
            let newPassword = "a new password 2"
            let changed = try dir.run(["account", "change-password", "--email", account.email, "--password-stdin", "--json"],
                                      stdin: Self.password + "\n" + newPassword + "\n")
            try #require(changed.status == 0, "\(changed)")
            // PasswordChanged, then SessionEnded for each session: cut after PasswordChanged.
            let cut = try Self.cutAfterFirstLine(of: "PasswordChanged", batchOf: 3, dir)

            try Self.expectTornTail(at: cut.number, batchOf: 3, dir)
            #expect(try Self.activeSessions(dir, uid: account.uid) == account.sessions, "no session the batch ended is counted ended")
            let audit = try dir.run(["audit", "--json"])
            #expect((try parseObject(audit.stdout)["accountChanges"] as? [Any])?.isEmpty == true, "no password change: \(audit)")

            // The next writer (this refused sign-in) moves the cut batch aside before appending.
            let refused = try dir.login(email: account.email, password: newPassword)
            #expect(refused.status == 1, "the new password is not in force: \(refused)")
            // Kept without the password hash's ciphertext: nothing of a cut line can be opened later.
            #expect(try readBytes(dir.brokenPath) == Self.withoutCiphertexts(cut.line))
            #expect(!String(decoding: try readBytes(dir.brokenPath), as: UTF8.self).contains(try Self.ciphertextRun(cut.line)))
            let after = try dir.logBytes()
            #expect(Array(after.prefix(before.count)) == before)
            #expect(try dir.events().dropFirst(splitLines(before).count).compactMap { $0["type"] as? String } == ["SignInFailed"])
            #expect(try dir.login(email: account.email, password: Self.password).status == 0, "the old password still signs in")
            #expect(try Self.activeSessions(dir, uid: account.uid).isSuperset(of: account.sessions))
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func anAccountDeleteCutAfterItsFirstLineDeletesNothing() throws {
        try withLedgerDir { dir in
            let account = try Self.accountWithTwoSessions(dir)
            let imagePath = dir.imageFolder + "/" + account.image
            let imageBytes = try readBytes(imagePath)
            let before = try dir.logBytes()
            // Kept: an erasure destroys its key only once the batch is durable, so a cut made after the
            // command returned is not one a power cut can leave (`ErasureCLITests` cuts that batch for real).
            let deleted = try dir.run(["account", "delete", account.email, "--keep-personal-data", "--json"])
            try #require(deleted.status == 0, "\(deleted)")
            // ImageDeleted, AccountDeleted, then SessionEnded for each session: cut after ImageDeleted.
            // The file is removed only once the batch is durable: the power cut came before, so it is there.
            let cut = try Self.cutAfterFirstLine(of: "ImageDeleted", batchOf: 4, dir)
            try writeBytes(imageBytes, to: imagePath)

            try Self.expectTornTail(at: cut.number, batchOf: 4, dir)
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "the image is its live account's, not an orphan: \(audit)")
            #expect((try parseObject(audit.stdout)["anomalies"] as? [Any])?.isEmpty == true)

            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            let report = try parseObject(recover.stdout)
            #expect(report["repairedTornTail"] as? Bool == true)
            #expect((report["removedImages"] as? [String])?.isEmpty == true, "\(recover.stdout)")
            #expect(FileManager.default.fileExists(atPath: imagePath), "the live account's image stays")
            #expect(try dir.logBytes() == before, "the cut lines are gone from the log")
            #expect(try readBytes(dir.brokenPath) == Self.withoutCiphertexts(cut.line), "and kept in events.jsonl.broken, without its hashes")

            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            let row = users.first { $0["uid"] as? String == account.uid }
            #expect(row?["status"] as? String == "active" && row?["profileImageName"] as? String == account.image)
            #expect(try Self.activeSessions(dir, uid: account.uid) == account.sessions, "no session the batch ended is counted ended")
            #expect(try dir.login(email: account.email, password: Self.password).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try dir.run(["audit", "--json"]).status == 0)
        }
    }

    /// A cut batch whose lines were edited is damage, not a torn tail: only bytes that could be an
    /// unacknowledged write are moved aside.
    @Test func aCutBatchThatDoesNotVerifyIsDamageNotATornTail() throws {
        try withLedgerDir { dir in
            let account = try Self.accountWithTwoSessions(dir)
            #expect(try dir.run(["account", "sign-out-everywhere", account.email, "--json"]).status == 0)
            let cut = try Self.cutAfterFirstLine(of: "SessionEnded", batchOf: 2, dir)
            try damageLine(dir.logPath, line: cut.number - 1)
            let verify = try parseObject(try dir.run(["verify", "--json"]).stdout)
            let problems = verify["problems"] as? [[String: Any]] ?? []
            #expect(problems.map { $0["kind"] as? String } == ["bad-hash"], "\(verify)")
            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 1, "writers refuse: \(recover)")
            #expect(!FileManager.default.fileExists(atPath: dir.brokenPath))
        }
    }
}
