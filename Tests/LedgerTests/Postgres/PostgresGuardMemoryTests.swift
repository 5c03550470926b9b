import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresGuardMemoryTests

/// A store that found the guards of schema 4 as defined and validated remembers what identified
/// them then, so its later appends read no definitions (`PostgresEventStore.lineGuardState`); a
/// guard made again under its name, or altered in place, is then read by its definition again and
/// refused. Through the library, as a long-lived server appends.
@Suite struct PostgresGuardMemoryTests {
    @Test(arguments: [
        "DROP CONSTRAINT ledger_events_columns_are_the_line, ADD CONSTRAINT ledger_events_columns_are_the_line CHECK (true)",
        "ALTER CONSTRAINT ledger_events_prior_line DEFERRABLE INITIALLY DEFERRED",
        "DROP CONSTRAINT ledger_events_prior_line",
    ])
    func aGuardChangedAfterAnAppendIsSeenByTheNext(_ change: String) throws {
        try withPostgresLedger { pg in
            let store = PostgresEventStore(url: pg.url)
            _ = try store.append([Fixtures.registration(81)], to: Fixtures.stream(.registration, 81), expected: .noStream)
            _ = try store.append([Fixtures.registration(82)], to: Fixtures.stream(.registration, 82), expected: .noStream)
            try PostgresConnection(pg.url).execute("ALTER TABLE ledger_events \(change)")
            do {
                _ = try store.append([Fixtures.registration(83)], to: Fixtures.stream(.registration, 83), expected: .noStream)
                Issue.record("appended under a changed guard")
            } catch let error as StoreError {
                #expect(error.code == .damaged && error.message.contains(PostgresSchema.lineGuard), "\(error)")
            }
            #expect(try store.head().seq == 2, "nothing appended")
            // Put back as defined, the same store appends again.
            #expect(try pg.run(["init"]).status == 0)
            _ = try store.append([Fixtures.registration(84)], to: Fixtures.stream(.registration, 84), expected: .noStream)
            #expect(try store.head().seq == 3)
        }
    }
}
