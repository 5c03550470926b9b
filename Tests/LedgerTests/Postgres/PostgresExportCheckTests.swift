import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresExportCheckTests

/// `ledger export --store` checks every line as `verify` does, as the file store's export does: a
/// row changed in the table, or one repeating an earlier event's id, stops it at that line (exit 1,
/// the line named on standard error), after writing exactly the lines before it.
struct PostgresExportCheckTests {
    /// The demo log imported, then `edit` applied to the store's rows; the export's result and the
    /// demo log's lines.
    private func exportAfter(_ edit: (PostgresURL, [Envelope]) throws -> Void) throws -> (ProcessResult, [String]) {
        try withPostgresLedger { pg in
            let imported = try pg.run(["import", Paths.demoLog])
            try #require(imported.status == 0, "\(imported)")
            try edit(pg.url, try postgresEnvelopes(pg.url))
            let lines = try readText(Paths.demoLog).split(separator: "\n").map(String.init)
            return (try pg.export(), lines)
        }
    }

    @Test func aChangedRowStopsTheExportAtItsLine() throws {
        let (exported, lines) = try exportAfter { url, envelopes in
            var changed = envelopes[4]
            changed.at = Timestamp(millis: 978_307_200_000)  // hashed again: the next row's link breaks
            try rewritePostgresRow(url, with: changed)
        }
        #expect(exported.status == 1, "\(exported)")
        #expect(exported.stderr.contains("line 6") && exported.stderr.contains("stopped there"), "\(exported.stderr)")
        // Lines 1-4 as imported, then line 5 as changed (its own hash holds; line 6's link to it does not).
        let written = exported.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(written.count == 6 && written.last == "", "five whole lines: \(written.count - 1)")
        #expect(Array(written.prefix(4)) == Array(lines.prefix(4)) && written[4] != lines[4])
    }

    @Test func aRepeatedIdStopsTheExportAtItsLine() throws {
        let (exported, lines) = try exportAfter { url, envelopes in
            // Line 7 takes line 2's id, hashed again, and every later row is chained again onto it
            // (its id column cannot follow, being unique: the constraint tying it to the line is dropped).
            try dropPostgresLineGuards(url)
            var rows = envelopes
            rows[6].id = rows[1].id
            var prev = rows[5].hash
            for n in 6..<rows.count {
                rows[n].prev = prev
                prev = try rewritePostgresRow(url, with: rows[n])
            }
        }
        #expect(exported.status == 1, "\(exported)")
        #expect(exported.stderr.contains("line 7") && exported.stderr.contains("already used"), "\(exported.stderr)")
        let before: String = lines.prefix(6).map { $0 + "\n" }.joined(separator: "")
        #expect(exported.stdout == before)
    }

    @Test func aDeletedRowStopsTheExportAfterEveryLineBeforeIt() throws {
        // The stream reports the gap a chunk ahead of the lines the scanner checked: they are all written.
        let (exported, lines) = try exportAfter { url, _ in
            try dropPostgresLineGuards(url)  // the server refuses it otherwise
            _ = try PostgresConnection(url).execute("DELETE FROM ledger_events WHERE seq = 20")
        }
        #expect(exported.status == 1, "\(exported)")
        #expect(exported.stderr.contains("line 20") && exported.stderr.contains("seq-gap"), "\(exported.stderr)")
        let before: String = lines.prefix(19).map { $0 + "\n" }.joined(separator: "")
        #expect(exported.stdout == before, "the 19 lines before the gap, exactly")
    }
}
