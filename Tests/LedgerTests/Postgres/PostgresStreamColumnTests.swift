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
}
