import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// Issue 27, item 9 on PostgreSQL: the account-state tables record the seq and hash of the last line
// they folded. A history rewritten in `ledger_events` and re-chained to its head (the tables left
// alone) is evidence, not staleness: writers refuse with `history-rewritten` instead of folding the
// tables again in silence, until `ledger recover --accept-history` says the log is the one to keep.

@Suite struct PostgresHistoryRewriteTests {
    /// Whether the rows' `hash` column was rewritten with the lines or left as it was: only the
    /// lines count (a `hash` left alone must not vouch for a rewritten line).
    @Test(arguments: [true, false])
    func aRechainedHistoryIsRefusedByWritersUntilAccepted(hashColumnToo: Bool) throws {
        try withPostgresLedger { pg in
            let password = "correct horse rewrite"
            for n in 0..<2 {
                let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("rewrite\(n)"), username: "R"), stdin: password + "\n")
                try #require(registered.status == 0, "\(registered)")
            }
            // Line 1 edited (its time moved by a millisecond) and every line re-chained after it.
            var envelopes = try LogRewriting.envelopes(Array(try pg.export().stdout.utf8))
            envelopes[0].at = Timestamp(millis: envelopes[0].at.millis + 1)
            let lines = splitLines(LogRewriting.chained(envelopes))
            let admin = try PostgresConnection(pg.url)
            for (n, line) in lines.enumerated() {
                let text = String(decoding: line.dropLast(), as: UTF8.self)
                let update = hashColumnToo
                    ? try admin.execute("UPDATE ledger_events SET line = $1, hash = $2 WHERE seq = $3", [text, String(text.suffix(66).prefix(64)), String(n + 1)])
                    : try admin.execute("UPDATE ledger_events SET line = $1 WHERE seq = $2", [text, String(n + 1)])
                #expect(update.affectedRows == 1)
            }
            // The chain holds on its own; the account-state tables remember the other history.
            let verified = try pg.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(problems.contains { $0["kind"] as? String == "history-rewritten" && $0["line"] as? Int == lines.count
                && ($0["message"] as? String)?.contains("ledger_account_state") == true }, "\(problems)")
            let before = try pg.export().stdout
            let refused = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("after"), username: "A"), stdin: password + "\n")
            #expect(refused.status == 1 && refused.stderr.contains("the history was rewritten"), "\(refused)")
            #expect(refused.stderr.contains("ledger_account_state") && refused.stderr.contains("--accept-history"), "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended, the tables kept as evidence")
            let accepted = try pg.run(["recover", "--accept-history", "--json"])
            #expect(accepted.status == 0, "\(accepted)")
            #expect((try parseObject(accepted.stdout)["discardedCaches"] as? [String])?.contains("ledger_account_state") == true, "\(accepted)")
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("after"), username: "A"), stdin: password + "\n")
            #expect(registered.status == 0, "\(registered)")
            #expect(try pg.run(["verify"]).status == 0)
        }
    }
    /// The views checkpoint's row records the line it was saved at: a history rewritten under it is
    /// named by `verify`, as the account-state tables' mark is; a checkpoint whose seal no longer
    /// holds is no evidence of anything.
    @Test(arguments: [true, false])
    func theViewsCheckpointRemembersARewrittenHistory(sealed: Bool) throws {
        try withPostgresLedger { pg in
            for n in 0..<2 {
                let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("cp\(n)"), username: "C"), stdin: "correct horse cp\n")
                try #require(registered.status == 0, "\(registered)")
            }
            #expect(try pg.run(["replay"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            let admin = try PostgresConnection(pg.url)
            try #require(try admin.execute("SELECT count(*) FROM ledger_checkpoints").int(0, 0) == 1, "a read saved the checkpoint")
            var envelopes = try LogRewriting.envelopes(Array(try pg.export().stdout.utf8))
            envelopes[0].at = Timestamp(millis: envelopes[0].at.millis + 1)
            for (n, line) in splitLines(LogRewriting.chained(envelopes)).enumerated() {
                let text = String(decoding: line.dropLast(), as: UTF8.self)
                _ = try admin.execute("UPDATE ledger_events SET line = $1, hash = $2 WHERE seq = $3", [text, String(text.suffix(66).prefix(64)), String(n + 1)])
            }
            try admin.execute("DELETE FROM ledger_account_state")  // only the checkpoint remembers
            if !sealed { try admin.execute("UPDATE ledger_checkpoints SET body = body || '\\x00'::bytea") }
            let verified = try pg.run(["verify", "--json"])
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            let named = problems.contains { $0["kind"] as? String == "history-rewritten" && ($0["message"] as? String)?.contains("ledger_checkpoints") == true }
            #expect(named == sealed, "\(verified)")
            #expect(verified.status == (sealed ? 1 : 0), "\(verified)")
            // A read saves no checkpoint over it; a writer, which must fold the tables again, refuses.
            #expect(try pg.run(["users"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            #expect(try pg.run(["verify"]).status == (sealed ? 1 : 0))
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("after"), username: "A"), stdin: "correct horse cp\n")
            if sealed {
                #expect(registered.status == 1 && registered.stderr.contains("the history was rewritten")
                        && registered.stderr.contains("ledger_checkpoints"), "\(registered)")
            } else {
                #expect(registered.status == 0, "\(registered)")
            }
        }
    }

    /// An erasure of a live account forged into the middle of `ledger_events`, every later line
    /// chained again: a read that meets it destroys no key (the account-state tables remember the
    /// other history, as writers find), and writers still refuse.
    @Test func aForgedErasureInARewrittenHistoryDestroysNoKey() throws {
        try withPostgresLedger { pg in
            let password = "correct horse rewrite"
            let victim = try #require(try parseObject(try pg.run(LedgerDir.registerArguments(email: "victim@example.com", username: "Victim"),
                                                                  stdin: password + "\n").stdout)["uid"] as? String)
            #expect(try pg.run(LedgerDir.registerArguments(email: "other@example.com", username: "Other"), stdin: password + "\n").status == 0)
            #expect(try pg.run(["login", "--email", "other@example.com", "--password-stdin"], stdin: password + "\n").status == 0)
            var envelopes = try LogRewriting.envelopes(Array(try pg.export().stdout.utf8))
            let at = try #require(envelopes.lastIndex { $0.type == "SessionStarted" })
            envelopes[at].type = "PersonalDataErased"
            envelopes[at].v = 1
            envelopes[at].batch = nil
            envelopes[at].stream = "account-" + victim
            envelopes[at].data = JSONObject([("uid", .string(victim)), ("subject", .string("account-" + victim)), ("reason", .string("operator"))])
            let admin = try PostgresConnection(pg.url)
            for (n, line) in splitLines(LogRewriting.chained(envelopes)).enumerated() where n >= at {
                let text = String(decoding: line.dropLast(), as: UTF8.self)
                // Its stream column too, as the line says: the server refuses the row otherwise.
                #expect(try admin.execute("UPDATE ledger_events SET line = $1, hash = $2, stream = $4 WHERE seq = $3",
                                          [text, String(text.suffix(66).prefix(64)), String(n + 1), envelopes[n].stream]).affectedRows == 1)
            }
            let read = try pg.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(read.status == 0, "\(read)")
            #expect(!read.stderr.contains("destroyed"), "\(read.stderr)")
            let key = try admin.execute("SELECT erased FROM ledger_keys WHERE subject = $1", ["account-" + victim])
            #expect(key.string(0, 0) == "f", "a forged erasure destroyed a live key")
            let refused = try pg.run(["login", "--email", "victim@example.com", "--password-stdin"], stdin: password + "\n")
            #expect(refused.status == 1 && refused.stderr.contains("the history was rewritten"), "\(refused)")
        }
    }
}
