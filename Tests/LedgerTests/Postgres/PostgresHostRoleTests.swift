import Foundation
import LedgerKit
import Testing

// MARK: - PostgresHostRoleTests

/// The hosts' role of Deployment.md ("The hosts' role"): one that may only read and insert
/// `ledger_events` runs every command, and cannot change or remove a line.
@Suite struct PostgresHostRoleTests {
    @Test func aRoleThatMayOnlyReadAndInsertTheLinesRunsEveryCommand() throws {
        try withPostgresLedger { pg in
            let role = "ledger_host_" + UUID().uuidString.prefix(8).lowercased()
            let admin = try PostgresConnection(pg.url)
            try admin.execute("CREATE ROLE \(role) LOGIN")
            defer {
                _ = try? admin.execute("DROP OWNED BY \(role)")
                _ = try? admin.execute("DROP ROLE \(role)")
            }
            // The statements Deployment.md shows.
            try admin.execute("GRANT USAGE ON SCHEMA public TO \(role)")
            try admin.execute("GRANT SELECT, INSERT ON ledger_events TO \(role)")
            try admin.execute("""
                GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ledger_registration_notes, ledger_accounts,
                      ledger_account_emails, ledger_signin_failures, ledger_account_state, ledger_checkpoints,
                      ledger_tree, ledger_keys, ledger_store, ledger_signin_pending TO \(role)
                """)
            let text = pg.url.text
            let user = try #require(text.range(of: "://postgres@"), "the test server's URL names its user: \(text)")
            let hostURL = try #require(PostgresURL(text.replacingCharacters(in: user, with: "://\(role)@")))
            let host = PostgresLedger(url: hostURL, dir: pg.dir)
            let email = uniqueEmail("host")
            #expect(try host.run(LedgerDir.registerArguments(email: email, username: "Host"), stdin: "correct horse 1\n").status == 0)
            #expect(try host.run(["login", "--email", email, "--password-stdin"], stdin: "correct horse 1\n").status == 0)
            #expect(try host.run(["login", "--email", email, "--password-stdin"], stdin: "wrong horse 1\n").status == 1)
            #expect(try host.run(["replay"]).status == 0)
            #expect(try host.run(["head"]).status == 0)
            let deleted = try host.run(["account", "delete", email, "--password-stdin"], stdin: "correct horse 1\n")
            #expect(deleted.status == 0, "\(deleted)")
            #expect(try host.run(["recover"]).status == 0)
            #expect(try host.run(LedgerDir.registerArguments(email: email, username: "Again"), stdin: "correct horse 1\n").status == 0)
            let verified = try host.run(["verify"])
            #expect(verified.status == 0, "\(verified)")
            let connection = try PostgresConnection(hostURL)
            for edit in ["UPDATE ledger_events SET line = line WHERE seq = 1", "DELETE FROM ledger_events WHERE seq = (SELECT max(seq) FROM ledger_events)"] {
                do {
                    _ = try connection.execute(edit)
                    Issue.record("the hosts' role ran \(edit)")
                } catch {
                    #expect("\(error)".contains("permission denied"), "\(error)")
                }
            }
        }
    }
}
