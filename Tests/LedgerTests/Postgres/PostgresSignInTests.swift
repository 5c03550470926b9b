import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresSignInTests

/// Sign-in on PostgreSQL: the lockout under concurrency (advisory sign-in locks per email), and a
/// password hash only taken from a row the next row links to.
struct PostgresSignInTests {
    @Test(arguments: [16, 64])
    func parallelWrongPasswordsGetFivePasswordChecks(count: Int) throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("pg-race"), password = "correct horse 1"
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "PG"), stdin: password + "\n").status == 0)
            let results = try raceLogins(count, email: email, password: "not the password",
                                         arguments: ["--data", pg.dir.path, "--store", pg.url.text])
            let right = try pg.run(["login", "--email", email, "--password-stdin", "--json"], stdin: password + "\n")
            let exported = try pg.export()
            #expect(exported.status == 0)
            let sessions = exported.stdout.split(separator: "\n").filter { $0.contains(#""type":"SessionStarted""#) }.count
            expectLockoutHeld(count: count, results: results, right: right, reasons: signInReasons(in: try pg.events(), email: email),
                              sessionsStarted: sessions)
        }
    }

    /// A check whose outcome never reached the store is counted by the next sign-in, on any host:
    /// its marker is a committed row of `ledger_signin_pending`.
    @Test func interruptedPasswordChecksAreCounted() throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("pg-interrupted"), password = "correct horse 1"
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "PG"), stdin: password + "\n").status == 0)
            let login = ["login", "--email", email, "--password-stdin", "--json"]
            let interrupted = try pg.run(login, stdin: password + "\n", env: ["LEDGER_FAILPOINTS": "SessionStarted=error"])
            #expect(interrupted.status == 3, "\(interrupted)")
            let admin = try PostgresConnection(pg.url)
            #expect(try admin.execute("SELECT count(*) FROM ledger_signin_pending").string(0, 0) == "1")
            let next = try pg.run(login, stdin: password + "\n")
            #expect(next.status == 0, "\(next)")
            #expect(signInReasons(in: try pg.events(), email: email) == ["wrong-password"])
            #expect(try admin.execute("SELECT count(*) FROM ledger_signin_pending").string(0, 0) == "0")

            for _ in 0..<4 {
                let failed = try pg.run(login, stdin: "not the password\n", env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
                #expect(failed.status == 3, "\(failed)")
            }
            let killed = try pg.run(login, stdin: "not the password\n", env: ["LEDGER_FAILPOINTS": "SignInFailed=crash"])
            #expect(killed.status == 137, "\(killed)")
            let right = try pg.run(login, stdin: password + "\n")
            #expect(right.status == 1, "\(right)")
            let reasons = signInReasons(in: try pg.events(), email: email)
            #expect(reasons == Array(repeating: "wrong-password", count: 6) + ["locked"], "the durable one counted once: \(reasons)")
        }
    }

    @Test func aPasswordHashPlantedInAnEditedRowIsRefused() throws {
        try withPostgresLedger { pg in
            let victim = uniqueEmail("victim"), attacker = uniqueEmail("attacker")
            for (email, password) in [(victim, "victim's password"), (attacker, "attacker's password")] {
                #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "PG"), stdin: password + "\n").status == 0)
            }
            // The attacker's hash sealed with the victim's key (as an editor who can read
            // `ledger_keys` would), so the line opens: only the chain can refuse it.
            let mine = try postgresAccountCreated(pg.url, email: victim), theirs = try postgresAccountCreated(pg.url, email: attacker)
            let attackerHash = try pg.keys.text("passwordHash", of: theirs)
            #expect(try pg.keys.text("passwordHash", of: mine) != attackerHash)
            try rewritePostgresRow(pg.url, with: try pg.keys.edited(mine) { $0["passwordHash"] = .string(attackerHash) })
            #expect(try pg.keys.text("passwordHash", of: try postgresAccountCreated(pg.url, email: victim)) == attackerHash)

            let before = try pg.export().stdout
            let login = try pg.run(["login", "--email", victim, "--password-stdin", "--json"], stdin: "attacker's password\n")
            #expect(login.status == 1, "\(login)")
            #expect(login.stderr.contains("damaged") && login.stderr.contains("line \(mine.seq + 1) does not link"), "\(login)")
            #expect(try pg.export().stdout == before, "nothing appended")
        }
    }

    /// The account tables are a cache of the log: `verify` on the store folds the log and reports
    /// tables that disagree (a failure count reset, a deleted account revived) as `cache-mismatch`.
    @Test(arguments: ["UPDATE ledger_signin_failures SET times = '{}'", "UPDATE ledger_accounts SET status = 'active' WHERE status = 'deleted'"])
    func editedAccountTablesAreACacheMismatch(edit: String) throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("pg-tables"), password = "correct horse 1"
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "PG"), stdin: password + "\n").status == 0)
            // A registration refused after its account was created leaves a deleted account.
            let failed = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("pg-failed"), username: "PG"), stdin: password + "\n",
                                    env: ["LEDGER_FAILPOINTS": "ProfileWritten=error"])
            #expect(failed.status == 1, "\(failed)")
            for _ in 0..<2 { _ = try pg.run(["login", "--email", email, "--password-stdin"], stdin: "not the password\n") }
            let intact = try pg.run(["verify", "--json"])
            #expect(intact.status == 0, "\(intact)")
            let admin = try PostgresConnection(pg.url)
            #expect(try admin.execute(edit).affectedRows >= 1)
            let checked = try pg.run(["verify", "--json"])
            #expect(checked.status == 1, "\(checked)")
            #expect(checked.stdout.contains("cache-mismatch") && checked.stdout.contains("ledger_accounts"), "\(checked)")
        }
    }
}
