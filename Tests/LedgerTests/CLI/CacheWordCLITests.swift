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

            // Plant mallory's hash in alice's PasswordChanged line and re-chain every later line.
            var all = try envelopes(dir)
            let planted = try #require(all.first { $0.type == "AccountCreated" && $0.data["email"] == .string("mallory@example.com") }?.data["passwordHash"])
            let at = try #require(all.firstIndex { $0.type == "PasswordChanged" })
            all[at].data["passwordHash"] = planted
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
}
