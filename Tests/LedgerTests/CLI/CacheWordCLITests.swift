import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// Issue 27, items 9–12: nothing irreversible on a cache's word, and a cache that recorded another
/// history is an alarm, end to end through the built `ledger` on the file store.
@Suite struct CacheWordCLITests {
    /// The uid `register --json` printed.
    private func uid(_ result: ProcessResult) throws -> String {
        try #require(try parseObject(result.stdout)["uid"] as? String, "\(result)")
    }

    /// The envelopes of the log.
    private func envelopes(_ dir: LedgerDir) throws -> [Envelope] { try LogRewriting.envelopes(try dir.logBytes()) }

    /// The password hash of the account that registered with `email`, in plain text (the log holds
    /// it encrypted): what an attacker who can read the key store takes.
    private func passwordHash(of email: String, in all: [Envelope], _ keys: FolderKeys) throws -> String {
        for line in all where line.type == "AccountCreated" {
            if try keys.text("email", of: line) == email { return try keys.text("passwordHash", of: line) }
        }
        throw SystemTestError("no account registered with \(email)")
    }

    /// The `code` of a `--json` error, or the `reason` of a refusal.
    private func code(_ result: ProcessResult) -> String? {
        let object = try? parseObject(result.stdout)
        return object?["code"] as? String ?? object?["reason"] as? String
    }

    /// The kinds of `audit --json`'s anomalies.
    private func anomalyKinds(_ dir: LedgerDir) throws -> [String] {
        ((try dir.auditReport()["anomalies"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
    }

    // MARK: - 9. A cache that recorded another history

    @Test func aRechainedHistoryIsRefusedByWritersAndReportedByVerifyUntilAccepted() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            _ = try dir.register(email: "mallory@example.com", username: "Mallory", password: "planted password 1")
            let changed = try dir.run(["account", "change-password", "--email", "alice@example.com", "--password-stdin"],
                                      stdin: "correct horse 1\nalice's new password\n")
            #expect(changed.status == 0, "\(changed)")
            _ = try dir.login(email: "alice@example.com", password: "alice's new password")
            #expect(try dir.run(["verify"]).status == 0)
            let index = try readBytes(dir.logPath + ".index")

            // Plant mallory's hash in alice's PasswordChanged line (sealed with alice's key) and re-chain every later line.
            var all = try envelopes(dir)
            let keys = FolderKeys(dir.path)
            let planted = try passwordHash(of: "mallory@example.com", in: all, keys)
            let at = try #require(all.firstIndex { $0.type == "PasswordChanged" })
            all[at] = try keys.edited(all[at]) { $0["passwordHash"] = .string(planted) }
            try writeBytes(LogRewriting.chained(all), to: dir.logPath)
            #expect(try readBytes(dir.logPath + ".index") == index, "the index is left alone")
            let rewritten = try envelopes(dir)
            let head = try #require(rewritten.last)

            // A writer refuses, naming the seq and both hashes, and appends nothing.
            let login = try dir.login(email: "alice@example.com", password: "planted password 1")
            #expect(login.status == 1, "\(login)")
            #expect(code(login) == "history-rewritten", "\(login)")
            let message = (try? parseObject(login.stdout))?["message"] as? String ?? login.stderr
            #expect(message.contains("\(head.seq)") && message.contains(head.hash) && message.contains(all.last!.hash), "\(message)")
            #expect(try envelopes(dir).count == rewritten.count)
            #expect(try readBytes(dir.logPath + ".index") == index, "the evidence is kept")
            let human = try dir.login(email: "alice@example.com", password: "planted password 1", json: false)
            #expect(human.status == 1 && human.stderr.contains("recover --accept-history"), "\(human)")

            // verify reports it, in words and in --json.
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1)
            let kinds = ((try parseObject(verified.stdout)["problems"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds == ["history-rewritten"], "\(verified)")
            #expect(try dir.run(["verify"]).stdout.contains("history-rewritten"))

            // The way back, said on purpose: the caches go, writers start over from the log as it is.
            let help = try dir.run(["recover", "--help"])
            #expect(help.status == 0 && help.stdout.contains("--accept-history"), "\(help)")
            let accepted = try dir.run(["recover", "--accept-history", "--json"])
            #expect(accepted.status == 0, "\(accepted)")
            let discarded = try parseObject(accepted.stdout)["discardedCaches"] as? [String]
            #expect(discarded?.contains(dir.logPath + ".index") == true, "\(accepted)")
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try dir.login(email: "alice@example.com", password: "planted password 1").status == 0)
        }
    }

    /// The same rewrite with the log's last line dropped afterwards, so the index's header names a
    /// line past the end and the index would pass for stale: the password line it recorded still
    /// proves the rewrite, to writers and to `verify` (found by an attack on the first fix).
    @Test func aRewriteWhoseTailWasDroppedIsStillARewrite() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            _ = try dir.register(email: "mallory@example.com", username: "Mallory", password: "planted password 1")
            #expect(try dir.run(["account", "change-password", "--email", "alice@example.com", "--password-stdin"],
                                stdin: "correct horse 1\nalice's new password\n").status == 0)
            _ = try dir.login(email: "nobody@example.com", password: "whatever it is")  // one more line, to drop
            var all = try envelopes(dir)
            let keys = FolderKeys(dir.path)
            let planted = try passwordHash(of: "mallory@example.com", in: all, keys)
            let at = try #require(all.firstIndex { $0.type == "PasswordChanged" })
            all[at] = try keys.edited(all[at]) { $0["passwordHash"] = .string(planted) }
            all.removeLast()
            try writeBytes(LogRewriting.chained(all), to: dir.logPath)
            for checkpointEvery in ["10000", "1"] {
                let login = try dir.run(["login", "--email", "alice@example.com", "--password-stdin", "--json"], stdin: "planted password 1\n",
                                        env: ["LEDGER_CHECKPOINT_EVERY": checkpointEvery])
                #expect(login.status == 1 && code(login) == "history-rewritten", "\(login)")
            }
            #expect(try envelopes(dir).count == all.count, "nothing appended")
            let verified = try dir.run(["verify", "--json"])
            let kinds = ((try parseObject(verified.stdout)["problems"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
            #expect(verified.status == 1 && kinds == ["history-rewritten"], "\(verified)")
        }
    }

    /// The tail cut and written anew (a `PasswordChanged` forged for dave with alice's password
    /// hash where other lines were), every cache left in place: the streams whose last lines the
    /// index recorded where the forged line now is prove the rewrite (found by a second attack).
    @Test func aTailCutAndWrittenAnewIsARewrite() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice", password: "alice's password 1")
            let dave = try uid(try dir.register(email: "dave@example.com", username: "Dave"))
            for _ in 0..<4 { _ = try dir.login(email: "alice@example.com", password: "alice's password 1") }
            var all = try envelopes(dir)
            let keys = FolderKeys(dir.path)
            let aliceHash = try passwordHash(of: "alice@example.com", in: all, keys)
            all.removeLast(3)
            let last = try #require(all.last)
            // Forged as a writer of this folder writes it: data version 2, sealed with dave's key.
            let forged = Envelope(seq: last.seq + 1, id: "00000000-0000-4000-8000-0000000000f1", at: last.at, type: "PasswordChanged", v: 2,
                                  stream: "account-\(dave)", data: JSONObject(), prev: "", hash: "")
            all.append(try keys.sealed(forged, data: JSONObject([("uid", .string(dave)), ("passwordHash", .string(aliceHash)),
                                                                 ("reason", .string("change"))])))
            try writeBytes(LogRewriting.chained(all), to: dir.logPath)
            let login = try dir.login(email: "dave@example.com", password: "alice's password 1")
            #expect(login.status == 1 && code(login) == "history-rewritten", "\(login)")
            let verified = try dir.run(["verify", "--json"])
            let kinds = ((try parseObject(verified.stdout)["problems"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
            #expect(verified.status == 1 && kinds == ["history-rewritten"], "\(verified)")
        }
    }

    /// The log's last line re-hashed as the first line of a batch left open, so it would pass for a
    /// batch cut by a power loss and be moved aside as a torn tail (an acknowledged event lost in
    /// silence): the index recorded that line with another hash, so it is a rewrite.
    @Test func anAcknowledgedLineDressedAsACutBatchIsARewrite() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            _ = try dir.login(email: "alice@example.com", password: "correct horse 1")
            var all = try envelopes(dir)
            all[all.count - 1].batch = BatchMark(index: 1, count: 2)
            try writeBytes(LogRewriting.chained(all), to: dir.logPath)
            let login = try dir.login(email: "alice@example.com", password: "correct horse 1")
            #expect(login.status == 1 && code(login) == "history-rewritten", "\(login)")
            #expect(try envelopes(dir).count == all.count, "the line is not moved aside")
            #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".broken"))
        }
    }

    @Test func aLogRestoredFromAnOlderBackupIsStalenessNotARewrite() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            let backup = try dir.logBytes()
            _ = try dir.login(email: "alice@example.com", password: "correct horse 1")
            try writeBytes(backup, to: dir.logPath)  // the index covers a seq this log does not hold
            #expect(try dir.login(email: "alice@example.com", password: "correct horse 1").status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    // MARK: - 10. Account commands decide from the verified log

    @Test func disableOfADeletedAccountIsRefusedWhateverTheCheckpointSays() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            // Kept (a legal hold), so the email still names the deleted account.
            #expect(try dir.run(["account", "delete", "alice@example.com", "--keep-personal-data"]).status == 0)
            try CacheForgery.checkpoint(dir) { $0.filter { $0.type != "AccountDeleted" } }
            let count = try envelopes(dir).count
            let disable = try dir.run(["account", "disable", "alice@example.com", "--json"])
            #expect(disable.status == 1 && code(disable) == "account-deleted", "\(disable)")
            #expect(try envelopes(dir).count == count, "nothing appended")
        }
    }

    @Test func deleteRemovesNoImageTheCheckpointLendsTheTarget() throws {
        try withLedgerDir { dir in
            let alice = try parseObject(try dir.register(email: "alice@example.com", username: "Alice", image: samplePNG).stdout)
            let image = try #require(alice["profileImageName"] as? String)
            _ = try dir.register(email: "bob@example.com", username: "Bob")
            try CacheForgery.checkpoint(dir) { all in
                all.map { e in
                    var e = e
                    if e.type == "ProfileWritten", e.data["email"] == .string("bob@example.com") { e.data["profileImageName"] = .string(image) }
                    return e
                }
            }
            #expect(try dir.run(["account", "delete", "bob@example.com"]).status == 0)
            #expect(dir.imageFiles() == [image], "alice's image file is kept")
            #expect(try dir.data(of: "ImageDeleted").isEmpty)
        }
    }

    @Test func deleteOfAnEmailDeletesItsOwnAccountWhenTheCheckpointSwapsEmails() throws {
        try withLedgerDir { dir in
            let alice = try uid(try dir.register(email: "alice@example.com", username: "Alice"))
            _ = try dir.register(email: "bob@example.com", username: "Bob")
            try CacheForgery.checkpoint(dir) { all in
                all.map { e in
                    var e = e
                    if e.data["email"] == .string("alice@example.com") { e.data["email"] = .string("bob@example.com") }
                    else if e.data["email"] == .string("bob@example.com") { e.data["email"] = .string("alice@example.com") }
                    return e
                }
            }
            #expect(try dir.run(["account", "delete", "alice@example.com"]).status == 0)
            #expect(try dir.data(of: "AccountDeleted").compactMap { $0["uid"] as? String } == [alice])
            #expect(try dir.login(email: "bob@example.com", password: "correct horse 1").status == 0, "bob is live")
        }
    }

    @Test func disableEndsTheSessionsTheCheckpointHides() throws {
        try withLedgerDir { dir in
            let alice = try uid(try dir.register(email: "alice@example.com", username: "Alice"))
            #expect(try dir.login(email: "alice@example.com", password: "correct horse 1").status == 0)
            let started = try dir.data(of: "SessionStarted").filter { $0["uid"] as? String == alice }.compactMap { $0["sessionId"] as? String }
            #expect(started.count == 2)
            try CacheForgery.checkpoint(dir) { $0.filter { $0.type != "SessionStarted" } }
            #expect(try dir.run(["account", "disable", "alice@example.com"]).status == 0)
            let ended = try dir.data(of: "SessionEnded").compactMap { $0["sessionId"] as? String }
            #expect(Set(ended) == Set(started), "every session of the account ended")
        }
    }

    // MARK: - 11. recover decides from the verified log

    @Test func recoverLeavesACompleteRegistrationTheCachesCallInProgress() throws {
        try withLedgerDir { dir in
            let carol = try parseObject(try dir.register(email: "carol@example.com", username: "Carol", image: samplePNG).stdout)
            let registration = try #require(carol["registration"] as? String)
            let image = try #require(carol["profileImageName"] as? String)
            let stream = StreamCategory.registration.stream(registration)
            let lines = try envelopes(dir).filter { $0.stream == stream }
            let stored = try #require(lines.firstIndex { $0.type == "ImageStored" })
            let hidden = Set(lines[(stored + 1)...].map(\.seq))
            try CacheForgery.checkpoint(dir) { $0.filter { !hidden.contains($0.seq) } }
            try CacheForgery.shortenStream(dir, stream, keeping: stored + 1)
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            let report = try parseObject(recovered.stdout)
            #expect((report["interrupted"] as? [String])?.isEmpty == true && (report["compensated"] as? [String])?.isEmpty == true, "\(report)")
            #expect(dir.imageFiles() == [image])
            #expect(try dir.data(of: "AccountDeleted").isEmpty)
            #expect(try dir.login(email: "carol@example.com", password: "correct horse 1").status == 0)
        }
    }

    // MARK: - 12. A used reset token stays used

    @Test func aUsedResetTokenStaysUsedWhenTheIndexForgetsItsUse() throws {
        try withLedgerDir { dir in
            try withTempDirectory { folder in
                let mailbox = try Mailbox(folder: folder)
                let dave = try uid(try dir.register(email: "dave@example.com", username: "Dave"))
                #expect(try dir.run(["account", "request-reset", "--email", "dave@example.com"], env: mailbox.environment).status == 0)
                let token = try mailbox.lastToken()
                #expect(try dir.run(["account", "reset-password", "--token-stdin"], stdin: token + "\nfirst new password\n").status == 0)
                let stream = StreamCategory.account.stream(dave)
                let count = try envelopes(dir).filter { $0.stream == stream }.count
                try CacheForgery.shortenStream(dir, stream, keeping: count - 1)  // forget the PasswordChanged
                let again = try dir.run(["account", "reset-password", "--token-stdin", "--json"], stdin: token + "\nsecond new password\n")
                #expect(again.status == 1 && code(again) == "token-refused", "\(again)")
                #expect(try dir.data(of: "PasswordChanged").count == 1)
                #expect(try dir.login(email: "dave@example.com", password: "first new password").status == 0)
            }
        }
    }

    // MARK: - What a cache can hide from a fast command, audit finds afterwards

    @Test func auditReportsATokenRedeemedTwice() throws {
        try withLedgerDir { dir in
            try withTempDirectory { folder in
                let mailbox = try Mailbox(folder: folder)
                _ = try dir.register(email: "dave@example.com", username: "Dave")
                #expect(try dir.run(["account", "request-reset", "--email", "dave@example.com"], env: mailbox.environment).status == 0)
                #expect(try dir.run(["account", "reset-password", "--token-stdin"], stdin: try mailbox.lastToken() + "\nfirst new password\n").status == 0)
                #expect(try !anomalyKinds(dir).contains("token-redeemed-twice"))
                // The reset's line again, as a second redemption of the same token would append it.
                var all = try envelopes(dir)
                var copy = try #require(all.last { $0.type == "PasswordChanged" })
                let keys = FolderKeys(dir.path), plain = try keys.opened(copy)
                copy.seq = all.count + 1
                copy.id = "00000000-0000-4000-8000-00000000abcd"
                copy.batch = nil  // a batch of its own, as a second redemption appends it
                all.append(try keys.sealed(copy, data: plain))  // its hash sealed for its new id, as a writer would
                try writeBytes(LogRewriting.chained(all), to: dir.logPath)
                #expect(try dir.run(["verify"]).status == 0)
                #expect(try anomalyKinds(dir).contains("token-redeemed-twice"))
            }
        }
    }

    @Test func auditReportsASessionStillActiveAfterItsAccountWasDisabled() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com", username: "Alice")
            #expect(try dir.run(["account", "disable", "alice@example.com"]).status == 0)
            #expect(try !anomalyKinds(dir).contains("session-active-after-disable"))
            // The disable's batch without its SessionEnded line, as if the disable had not seen the session.
            // (Written as a batch of one line: a disable that ended no session appends no batch mark.)
            let all = try envelopes(dir).filter { $0.type != "SessionEnded" }.map { e -> Envelope in
                var one = e
                if one.type == "AccountDisabled" { one.batch = nil }
                return one
            }
            try writeBytes(LogRewriting.chained(all), to: dir.logPath)
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try anomalyKinds(dir).contains("session-active-after-disable"))
        }
    }
}
