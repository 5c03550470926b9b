import Foundation
import Testing

/// The `power-loss` drill on a PostgreSQL store: the transaction holds only the lines before EVENT,
/// the process dies (its connection, and with it the registration's advisory lock, goes), `audit`
/// reports the registration `interrupted` and `recover` compensates it.
struct PostgresPowerLossTests {
    @Test func aRegistrationCutBeforeItsProfileIsInterruptedUntilRecover() throws {
        try withPostgresLedger { pg in
            let cut = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("pg-cut"), username: "Cut", image: samplePNG),
                                 stdin: "correct horse 1\n", env: ["LEDGER_FAILPOINTS": "ProfileWritten=power-loss"])
            #expect(cut.status == 137, "\(cut)")
            let types = try pg.export().stdoutLines.compactMap { (try? parseObject($0))?["type"] as? String }
            #expect(types == ["AccountCreated", "ImageStored"])
            let audit = try pg.run(["audit", "--json"])
            #expect(audit.status == 1, "\(audit)")
            let kinds = (try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds == ["interrupted"])
            let recover = try pg.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            #expect((try parseObject(recover.stdout)["compensated"] as? [String])?.count == 1)
            #expect(try pg.run(["audit", "--json"]).status == 0)
            #expect(pg.dir.imageFiles().isEmpty)
        }
    }
}
