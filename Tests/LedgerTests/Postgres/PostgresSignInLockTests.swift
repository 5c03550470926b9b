import Foundation
import LedgerKit
import Testing

// MARK: - PostgresSignInLockTests

/// The lockout under concurrency on PostgreSQL: advisory sign-in locks per email.
struct PostgresSignInLockTests {
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
            expectLockoutHeld(count: count, results: results, right: right, reasons: try signInReasons(inLog: exported.stdout, email: email),
                              sessionsStarted: sessions)
        }
    }
}
