import Foundation
import LedgerKit
import Testing

/// The rows' `stream`, `id` and `seq` columns are copies of what each line says, there for the
/// table's indexes: the server refuses an edit of one alone (`PostgresSchema.lineGuard`), and a
/// hand that drops that constraint first still cannot make a decision forget a line (a token's use,
/// a registration's stream) nor get anything appended. Through the built `ledger`.
@Suite struct PostgresStreamColumnTests {
    private static let password = "correct horse column"

    /// A used reset token whose use (`PasswordChanged`) is moved out of the account's stream by its
    /// column: the server refuses the edit; made after dropping the constraint, the token is still
    /// refused, writers refuse the store, `verify` names both, and `ledger init` refuses to add the
    /// constraint back until the row says what its line does.
    @Test func aTokensUseHiddenByTheStreamColumnStillCounts() throws {
        try MailedStore.onPostgres { store, pg in
            let email = uniqueEmail("column")
            let registered = try store.call(LedgerDir.registerArguments(email: email, username: "Column"), Self.password + "\n")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            #expect(try store.call(["account", "request-reset", "--email", email]).status == 0)
            let token = try store.mailbox.lastToken()
            let first = try store.call(["account", "reset-password", "--token-stdin"], token + "\nthe owner's new password\n")
            #expect(first.status == 0, "\(first)")
            let move = "UPDATE ledger_events SET stream = $2 WHERE type = 'PasswordChanged' AND stream = $1"
            #expect(refusedByTheLineGuard(pg.url, move, ["account-" + uid, "account-00000000-0000-4000-8000-000000000000"]))
            try dropPostgresLineGuards(pg.url)
            let moved = try PostgresConnection(pg.url).execute(move, ["account-" + uid, "account-00000000-0000-4000-8000-000000000000"])
            #expect(moved.affectedRows == 1)
            let before = try pg.export().stdout
            let again = try store.call(["account", "reset-password", "--token-stdin"], token + "\nan intruder's password\n")
            #expect(again.status == 1 && again.stderr == "ledger: \(AccountService.tokenRefusal)\n", "\(again)")
            let unguarded = try store.call(["login", "--email", email, "--password-stdin"], "the owner's new password\n")
            #expect(unguarded.status == 1 && unguarded.stderr.contains(PostgresSchema.lineGuard) && unguarded.stderrLines.count == 1, "\(unguarded)")
            #expect(try pg.export().stdout == before, "nothing appended")
            let verified = try pg.run(["verify", "--json"])
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            // The dropped constraint (at line 1), the row's column, and the position the row holds
            // in the stream it was moved to (the account's own stream has no other row).
            #expect(verified.status == 1 && problems.count == 3 && problems.allSatisfy { $0["kind"] as? String == "cache-mismatch" }, "\(verified)")
            #expect((problems.first?["message"] as? String)?.contains(PostgresSchema.lineGuard) == true, "\(problems)")
            #expect(problems.contains { ($0["message"] as? String)?.contains("holds stream") == true }, "\(problems)")
            let refusedInit = try pg.run(["init"])
            #expect(refusedInit.status == 1 && refusedInit.stderr.contains("verify --store") && refusedInit.stderrLines.count == 1, "\(refusedInit)")
            try PostgresConnection(pg.url).execute(move, ["account-00000000-0000-4000-8000-000000000000", "account-" + uid])
            #expect(try pg.run(["init"]).status == 0)
            #expect(try store.call(["login", "--email", email, "--password-stdin"], "an intruder's password\n").status == 1)
            #expect(try store.call(["login", "--email", email, "--password-stdin"], "the owner's new password\n").status == 0)
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    /// A retried registration whose first line was moved out of its stream by the column (leaving a
    /// hole in the stream's positions), the constraint dropped first, is still answered from its
    /// whole stream: the first attempt's account, nothing appended.
    @Test func aRetryWhoseStreamLostARowByItsColumnAnswersTheFirstAttempt() throws {
        try withPostgresLedger { pg in
            let arguments = LedgerDir.registerArguments(email: uniqueEmail("retry"), username: "Retry") + ["--idempotency-key", "column-retry-1", "--json"]
            let first = try pg.run(arguments, stdin: Self.password + "\n")
            let uid = try #require(try parseObject(first.stdout)["uid"] as? String)
            let move = "UPDATE ledger_events SET stream = 'registration-00000000-0000-4000-8000-000000000000' WHERE seq = 1"
            #expect(refusedByTheLineGuard(pg.url, move))
            try dropPostgresLineGuards(pg.url)
            #expect(try PostgresConnection(pg.url).execute(move).affectedRows == 1)
            let retried = try pg.run(arguments, stdin: Self.password + "\n")
            #expect(retried.status == 0, "\(retried)")
            #expect(try parseObject(retried.stdout)["uid"] as? String == uid, "\(retried)")
            #expect(try pg.events().count == 3, "nothing appended")
        }
    }

    /// Every row of a completed registration moved out of its stream by the column, the constraint
    /// dropped first: a retry finds no line of its stream by the column, and would append `Failed`
    /// to the completed registration, which `recover` would then compensate, deleting the account.
    /// Writers refuse the store instead: nothing is appended, the account stays live.
    @Test func aRegistrationMovedOutWholeIsNotFailedAgain() throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("moved")
            let arguments = LedgerDir.registerArguments(email: email, username: "Moved") + ["--idempotency-key", "column-retry-2", "--json"]
            let first = try pg.run(arguments, stdin: Self.password + "\n")
            let uid = try #require(try parseObject(first.stdout)["uid"] as? String)
            let move = "UPDATE ledger_events SET stream = 'registration-00000000-0000-4000-8000-000000000000' WHERE stream LIKE 'registration-%'"
            #expect(refusedByTheLineGuard(pg.url, move))
            try dropPostgresLineGuards(pg.url)
            #expect(try PostgresConnection(pg.url).execute(move).affectedRows == 2, "AccountCreated and ProfileWritten")
            let before = try pg.export().stdout
            let retried = try pg.run(arguments, stdin: Self.password + "\n")
            #expect(retried.status == 1 && retried.stderr.contains(PostgresSchema.lineGuard), "\(retried)")
            #expect(try pg.export().stdout == before, "nothing appended")
            let recovered = try pg.run(["recover", "--json"])
            #expect(try pg.export().stdout == before, "recover appended nothing: \(recovered)")
            let users = try pg.run(["users", "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(rows.contains { $0["uid"] as? String == uid && $0["email"] as? String == email && $0["status"] as? String == "active" }, "\(users)")
        }
    }

    /// A registration's rows deleted from the middle of the log (to be put back once a retry was
    /// appended to its stream as new) are refused by the server: each row has the one after it.
    /// Only the log's tail can go.
    @Test func rowsCannotBeDeletedFromTheMiddle() throws {
        try withPostgresLedger { pg in
            let arguments = LedgerDir.registerArguments(email: uniqueEmail("deleted"), username: "Deleted") + ["--idempotency-key", "column-retry-3"]
            #expect(try pg.run(arguments, stdin: Self.password + "\n").status == 0)
            let before = try pg.export().stdout
            #expect(refusedByTheLineGuard(pg.url, "DELETE FROM ledger_events WHERE stream LIKE 'registration-%'", guard: PostgresSchema.priorLineGuard))
            #expect(refusedByTheLineGuard(pg.url, "DELETE FROM ledger_events WHERE seq = 1", guard: PostgresSchema.priorLineGuard))
            #expect(try pg.export().stdout == before)
            let retried = try pg.run(arguments, stdin: Self.password + "\n")
            #expect(retried.status == 0, "\(retried)")
            #expect(try pg.events().count == 3, "nothing appended")
        }
    }

    /// A guard dropped and made again under its name as something weaker (a check that holds of
    /// every row, a foreign key checked only at commit) is no guard: writers refuse the store,
    /// `verify` names it, and `ledger init` puts back the guard as defined.
    @Test(arguments: weakenedLineGuards)
    func aGuardRedefinedUnderItsNameIsNoGuard(_ change: String) throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("redefined")
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Redefined"), stdin: Self.password + "\n").status == 0)
            try PostgresConnection(pg.url).execute("ALTER TABLE ledger_events \(change)")
            let before = try pg.export().stdout
            let refused = try pg.run(["login", "--email", email, "--password-stdin"], stdin: Self.password + "\n")
            #expect(refused.status == 1 && refused.stderr.contains(PostgresSchema.lineGuard) && refused.stderrLines.count == 1, "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended")
            let verified = try pg.run(["verify", "--json"])
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(verified.status == 1 && problems.count == 1 && problems.first?["kind"] as? String == "cache-mismatch", "\(verified)")
            #expect(try pg.run(["init"]).status == 0)
            #expect(refusedByTheLineGuard(pg.url, "UPDATE ledger_events SET stream = 'x' WHERE seq = 1"))
            #expect(refusedByTheLineGuard(pg.url, "DELETE FROM ledger_events WHERE seq = 1", guard: PostgresSchema.priorLineGuard))
            #expect(try pg.run(["login", "--email", email, "--password-stdin"], stdin: Self.password + "\n").status == 0)
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    /// A stream whose positions no longer run 1, 2, … (a row's `stream_position`, which the line
    /// does not hold, edited): the next append to it is refused in one line, nothing appended, and
    /// `verify` names the row.
    @Test func aStreamWhosePositionsWereEditedIsNotAppendedTo() throws {
        try withPostgresLedger { pg in
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("position"), username: "Position") + ["--json"],
                                        stdin: Self.password + "\n")
            let session = try #require(try parseObject(registered.stdout)["sessionId"] as? String, "\(registered)")
            let edited = try PostgresConnection(pg.url).execute("UPDATE ledger_events SET stream_position = 7 WHERE stream = $1", ["session-" + session])
            #expect(edited.affectedRows == 1)
            let before = try pg.export().stdout
            let refused = try pg.run(["logout", "--session", session])
            #expect(refused.status == 1 && refused.stderr.contains("stream_position") && refused.stderrLines.count == 1, "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended")
            // `verify` names the row the refusal points at.
            let verified = try pg.run(["verify", "--json"])
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            let line = try #require(try PostgresConnection(pg.url).execute("SELECT seq FROM ledger_events WHERE stream = $1", ["session-" + session]).int(0, 0))
            #expect(verified.status == 1 && problems.count == 1 && problems.first?["kind"] as? String == "cache-mismatch"
                    && problems.first?["line"] as? Int == line && (problems.first?["message"] as? String)?.contains("stream_position 7") == true, "\(verified)")
            try PostgresConnection(pg.url).execute("UPDATE ledger_events SET stream_position = 1 WHERE stream = $1", ["session-" + session])
            #expect(try pg.run(["verify"]).status == 0)
            #expect(try pg.run(["logout", "--session", session]).status == 0)
        }
    }

    /// An import that continues a store (its lines a prefix of the file) inserts nothing into one
    /// that lost its guard or holds a stream not numbered 1, 2, …: what appends refuse.
    @Test(arguments: ["guard dropped", "position edited"])
    func anImportContinuesOnlyAGuardedStore(_ damage: String) throws {
        try withTempDirectory { folder in
            let lines = splitLines(try readBytes(Paths.demoLog))
            let prefix = "\(folder)/prefix.jsonl"
            try writeBytes(lines.prefix(10).flatMap { $0 }, to: prefix)
            try withPostgresLedger { pg in
                #expect(try pg.run(["import", prefix]).status == 0)
                if damage == "guard dropped" {
                    try dropPostgresLineGuards(pg.url)
                } else {
                    try PostgresConnection(pg.url).execute("UPDATE ledger_events SET stream_position = 9 WHERE seq = 2")
                }
                let before = try pg.export().stdout
                let refused = try pg.run(["import", Paths.demoLog])
                #expect(refused.status == 1 && refused.stderrLines.count == 1, "\(refused)")
                #expect(refused.stderr.contains(damage == "guard dropped" ? PostgresSchema.lineGuard : "not numbered 1, 2"), "\(refused)")
                #expect(try pg.export().stdout == before, "nothing imported")
            }
        }
    }

    /// `verify --store` names a row whose `stream`, `id` or `seq` column no longer says what its line
    /// does (`cache-mismatch` on that line), and takes a line spelled otherwise than ledger writes
    /// it (a space after a colon, hashed anew) with columns that agree as sound.
    @Test(arguments: ["stream = 'registration-00000000-0000-4000-8000-000000000000'", "id = '00000000-0000-4000-8000-000000000000'", "none",
                      // The line's own stream with the text after it, quotes and all: still not the line's stream.
                      #"stream = substring(line from '"stream":"([^"]*)"') || '","data":{"uid":"' || substring(line from '"uid":"([^"]*)"')"#])
    func verifyNamesAColumnThatNoLongerSaysWhatItsLineDoes(_ change: String) throws {
        try withTempDirectory { folder in
            // The demo log with its first line spelled with a space after `"seq":`, every line chained again.
            var lines = splitLines(try readBytes(Paths.demoLog)).map { String(decoding: $0.dropLast(), as: UTF8.self) }
            lines[0] = lines[0].replacingOccurrences(of: "{\"seq\":1,", with: "{\"seq\": 1,")
            var prev = String(repeating: "0", count: 64), out = ""
            for line in lines {
                let body = String(line[..<line.range(of: ",\"prev\":\"")!.lowerBound]) + ",\"prev\":\"\(prev)\""
                prev = SHA256.hex(Array(body.utf8))
                out += body + ",\"hash\":\"\(prev)\"}\n"
            }
            let log = "\(folder)/spelled.jsonl"
            try writeBytes(Array(out.utf8), to: log)
            try #require(try ledger("verify", log).status == 0)
            try withPostgresLedger { pg in
                #expect(try pg.run(["import", log]).status == 0)
                if change != "none" {
                    #expect(refusedByTheLineGuard(pg.url, "UPDATE ledger_events SET \(change) WHERE seq = 3"))
                    try dropPostgresLineGuards(pg.url)
                    try PostgresConnection(pg.url).execute("UPDATE ledger_events SET \(change) WHERE seq = 3")
                }
                let verified = try pg.run(["verify", "--json"])
                let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
                if change == "none" {
                    #expect(verified.status == 0 && problems.isEmpty, "\(verified)")
                } else {
                    #expect(verified.status == 1, "\(verified)")
                    // The dropped constraint (at line 1), then the row's column; a row moved to
                    // another stream leaves its own stream's positions with a hole, named too.
                    #expect(problems.count == (change.hasPrefix("id") ? 2 : 3) && problems.allSatisfy { $0["kind"] as? String == "cache-mismatch" },
                            "\(problems)")
                    #expect((problems.first?["message"] as? String)?.contains(PostgresSchema.lineGuard) == true, "\(problems)")
                    let column = change.hasPrefix("id") ? "holds id" : "holds stream"
                    #expect(problems.contains { $0["line"] as? Int == 3 && ($0["message"] as? String)?.contains(column) == true }, "\(problems)")
                }
            }
        }
    }

    /// A row whose line names a seq past any number is damage `verify` names (no trap), and a
    /// column holding a newline and an escape sequence is printed escaped.
    @Test func oddRowsAreNamedNotTrappedOn() throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(["import", Paths.demoLog]).status == 0)
            let admin = try PostgresConnection(pg.url)
            try dropPostgresLineGuards(pg.url)  // the server refuses these rows otherwise
            try admin.execute(#"UPDATE ledger_events SET line = replace(line, '{"seq":5,', '{"seq":99999999999999999999,') WHERE seq = 5"#)
            let huge = try pg.run(["verify", "--json"])
            let first = (try parseObject(huge.stdout)["problems"] as? [[String: Any]])?.first
            #expect(huge.status == 1 && first?["line"] as? Int == 5, "\(huge)")
            try admin.execute(#"UPDATE ledger_events SET line = replace(line, '{"seq":99999999999999999999,', '{"seq":5,') WHERE seq = 5"#)
            try admin.execute("UPDATE ledger_events SET stream = E'x\\nok: 25 events\\x1b[2J' WHERE seq = 7")
            let forged = try pg.run(["verify"])
            #expect(forged.status == 1 && forged.stdout.contains("cache-mismatch"), "\(forged)")
            #expect(!forged.stdout.contains("\u{1B}") && !forged.stdout.contains("\nok: 25 events"), "\(forged)")
        }
    }
}
