import Foundation
import LedgerKit
import Testing

/// A database made by an older ledger has a CHECK on `ledger_accounts.status` listing only
/// pending/active/deleted: the first append (or `ledger init`) of a `disabled` account drops it.
@Suite struct PostgresStatusCheckTests {
    private static let oldCheck = "ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_status_check CHECK (status IN ('pending', 'active', 'deleted'))"

    private static func hasCheck(_ url: PostgresURL) throws -> Bool {
        let result = try PostgresConnection(url).execute("SELECT count(*) FROM pg_constraint WHERE conname = 'ledger_accounts_status_check'")
        return result.int(0, 0) == 1
    }

    @Test func anAppendDropsTheOlderStatusCheckOnce() throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("check")
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "C"), stdin: "correct horse 1\n").status == 0)
            try PostgresConnection(pg.url).execute(Self.oldCheck)
            #expect(try Self.hasCheck(pg.url))
            let disable = try pg.run(["account", "disable", email, "--json"])
            #expect(disable.status == 0, "\(disable)")
            #expect(try !Self.hasCheck(pg.url))
            let user = try parseObject(try pg.run(["user", email, "--json"]).stdout)
            #expect(user["status"] as? String == "disabled")
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    @Test func initDropsTheOlderStatusCheck() throws {
        try withPostgresLedger { pg in
            try PostgresConnection(pg.url).execute(Self.oldCheck)
            #expect(try pg.run(["init"]).status == 0)
            #expect(try !Self.hasCheck(pg.url))
        }
    }
}
