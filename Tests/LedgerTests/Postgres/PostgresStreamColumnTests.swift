import Foundation
import LedgerKit
import Testing

/// The rows' `stream` column is a copy of what each line says, there for the table's index: a hand
/// that changes it must not make a decision forget a line (a token's use). Through the built `ledger`.
@Suite struct PostgresStreamColumnTests {
    private static let password = "correct horse column"

    /// A used reset token whose use (`PasswordChanged`) was moved out of the account's stream by its
    /// column is still used: the token is refused and the password stays.
    @Test func aTokensUseHiddenByTheStreamColumnStillCounts() throws {
        try MailedStore.onPostgres { store, pg in
            let email = uniqueEmail("column")
            let registered = try store.call(LedgerDir.registerArguments(email: email, username: "Column"), Self.password + "\n")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            #expect(try store.call(["account", "request-reset", "--email", email]).status == 0)
            let token = try store.mailbox.lastToken()
            let first = try store.call(["account", "reset-password", "--token-stdin"], token + "\nthe owner's new password\n")
            #expect(first.status == 0, "\(first)")
            let moved = try PostgresConnection(pg.url).execute(
                "UPDATE ledger_events SET stream = 'account-00000000-0000-4000-8000-000000000000' WHERE type = 'PasswordChanged' AND stream = $1",
                ["account-" + uid])
            #expect(moved.affectedRows == 1)
            let again = try store.call(["account", "reset-password", "--token-stdin"], token + "\nan intruder's password\n")
            #expect(again.status == 1 && again.stderr == "ledger: \(AccountService.tokenRefusal)\n", "\(again)")
            #expect(try store.call(["login", "--email", email, "--password-stdin"], "an intruder's password\n").status == 1)
            #expect(try store.call(["login", "--email", email, "--password-stdin"], "the owner's new password\n").status == 0)
        }
    }

    /// A retried registration whose first line was moved out of its stream by the column (leaving a
    /// hole in the stream's positions) is still answered from its whole stream: the first attempt's account.
    @Test func aRetryWhoseStreamLostARowByItsColumnAnswersTheFirstAttempt() throws {
        try withPostgresLedger { pg in
            let arguments = LedgerDir.registerArguments(email: uniqueEmail("retry"), username: "Retry") + ["--idempotency-key", "column-retry-1", "--json"]
            let first = try pg.run(arguments, stdin: Self.password + "\n")
            let uid = try #require(try parseObject(first.stdout)["uid"] as? String)
            let moved = try PostgresConnection(pg.url).execute(
                "UPDATE ledger_events SET stream = 'registration-00000000-0000-4000-8000-000000000000' WHERE seq = 1")
            #expect(moved.affectedRows == 1)
            let retried = try pg.run(arguments, stdin: Self.password + "\n")
            #expect(retried.status == 0, "\(retried)")
            #expect(try parseObject(retried.stdout)["uid"] as? String == uid, "\(retried)")
            #expect(try pg.events().count == 3, "nothing appended")
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
                if change != "none" { try PostgresConnection(pg.url).execute("UPDATE ledger_events SET \(change) WHERE seq = 3") }
                let verified = try pg.run(["verify", "--json"])
                let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
                if change == "none" {
                    #expect(verified.status == 0 && problems.isEmpty, "\(verified)")
                } else {
                    #expect(verified.status == 1, "\(verified)")
                    #expect(problems.count == 1 && problems.first?["kind"] as? String == "cache-mismatch" && problems.first?["line"] as? Int == 3
                            && (problems.first?["message"] as? String)?.contains(change.hasPrefix("id") ? "holds id" : "holds stream") == true, "\(problems)")
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
