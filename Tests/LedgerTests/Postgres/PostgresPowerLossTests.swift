import Foundation
import Testing

/// The `power-loss` drill on a PostgreSQL store: a power cut before the transaction commits leaves
/// none of its lines; the process dies (its connection, and with it the registration's advisory
/// lock, goes), `audit` reports the blob written before the batch as an orphan and `recover` removes it.
struct PostgresPowerLossTests {
    @Test func aRegistrationCutBeforeItsProfileLeavesNothingButItsBlob() throws {
        try withPostgresLedger { pg in
            let cut = try pg.run(LedgerDir.registerArguments(email: uniqueEmail("pg-cut"), username: "Cut", image: samplePNG),
                                 stdin: "correct horse 1\n", env: ["LEDGER_FAILPOINTS": "ProfileWritten=power-loss"])
            #expect(cut.status == 137, "\(cut)")
            #expect(try pg.export().stdoutLines.isEmpty)
            let blob = try #require(pg.dir.imageFiles().first)
            let audit = try pg.run(["audit", "--json"])
            #expect(audit.status == 1, "\(audit)")
            let kinds = (try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds == ["orphan-image-file"])
            let recover = try pg.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            #expect(try parseObject(recover.stdout)["removedImages"] as? [String] == [blob])
            #expect(try pg.run(["audit", "--json"]).status == 0)
            #expect(pg.dir.imageFiles().isEmpty)
        }
    }
}
