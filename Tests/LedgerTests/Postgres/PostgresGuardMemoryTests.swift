import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresGuardMemoryTests

/// A store that found the guards of schema 4 as defined and validated remembers what identified
/// them then, so its later appends read no definitions (`PostgresEventStore.lineGuardState`); a
/// guard made again under its name, or altered in place, is then read by its definition again and
/// refused. Through the library, as a long-lived server appends.
@Suite struct PostgresGuardMemoryTests {
    @Test(arguments: weakenedLineGuards)
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

    /// An owner who puts `pg_catalog` last in the database's search path and makes the check again
    /// with an `@>` of another schema that holds of every row: the server prints it as PostgreSQL's
    /// `@>` under that path, but ledger reads the definitions with `pg_catalog` first, so writers
    /// refuse, `verify` names it, and `ledger init` makes the guards again with PostgreSQL's own.
    @Test func aGuardBuiltOnAnotherSchemasOperatorIsNoGuard() throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("shadow")
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Shadow"), stdin: "correct horse 1\n").status == 0)
            let admin = try PostgresConnection(pg.url)
            try admin.execute("CREATE FUNCTION public.ledger_always(jsonb, jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true'")
            try admin.execute("CREATE OPERATOR public.@> (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = public.ledger_always)")
            try admin.execute(#"DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET search_path = "$user", public, pg_catalog', current_database()); END $$"#)
            try admin.execute("""
                ALTER TABLE ledger_events DROP CONSTRAINT \(PostgresSchema.lineGuard), ADD CONSTRAINT \(PostgresSchema.lineGuard)
                CHECK (line::jsonb OPERATOR(public.@>) jsonb_build_object('seq', seq, 'id', id::text, 'stream', stream))
                """)
            let before = try pg.export().stdout
            let refused = try pg.run(["login", "--email", email, "--password-stdin"], stdin: "correct horse 1\n")
            #expect(refused.status == 1 && refused.stderr.contains(PostgresSchema.lineGuard) && refused.stderrLines.count == 1, "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended")
            #expect(try pg.run(["verify"]).status == 1)
            #expect(try pg.run(["init"]).status == 0)
            #expect(refusedByTheLineGuard(pg.url, "UPDATE ledger_events SET stream = 'x' WHERE seq = 1"))
            #expect(try pg.run(["login", "--email", email, "--password-stdin"], stdin: "correct horse 1\n").status == 0)
        }
    }

    /// A trigger or rule of the table's own — one that drops a session's row, one that deletes it
    /// after the insert (the count of rows the insert reports stays right), one that sends it to
    /// another table —, the foreign key's triggers disabled, or row-level security: writers refuse
    /// the store in one line and store nothing, instead of acknowledging a session the table does
    /// not hold, and `verify` names it; undone, the store is written again.
    @Test(arguments: [
        ["CREATE TRIGGER ledger_hook BEFORE INSERT ON ledger_events FOR EACH ROW EXECUTE FUNCTION ledger_drop_sessions()",
         "DROP TRIGGER ledger_hook ON ledger_events"],
        ["CREATE TRIGGER ledger_hook AFTER INSERT ON ledger_events FOR EACH ROW EXECUTE FUNCTION ledger_delete_sessions()",
         "DROP TRIGGER ledger_hook ON ledger_events"],
        ["CREATE RULE ledger_hook AS ON INSERT TO ledger_events WHERE NEW.stream LIKE 'session-%' DO INSTEAD INSERT INTO ledger_elsewhere VALUES (NEW.line)",
         "DROP RULE ledger_hook ON ledger_events"],
        // A superuser's: the foreign key's triggers off, so rows could go from the middle.
        ["ALTER TABLE ledger_events DISABLE TRIGGER ALL", "ALTER TABLE ledger_events ENABLE TRIGGER ALL"],
        // Rows ledger writes could be hidden from the role that reads them.
        ["ALTER TABLE ledger_events ENABLE ROW LEVEL SECURITY", "ALTER TABLE ledger_events DISABLE ROW LEVEL SECURITY"],
    ])
    func aTriggerOrRuleOfTheTablesOwnIsRefused(_ change: [String]) throws {
        let hook = change[0]
        try withPostgresLedger { pg in
            let email = uniqueEmail("trigger")
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Trigger"), stdin: "correct horse 1\n").status == 0)
            let admin = try PostgresConnection(pg.url)
            try admin.execute("""
                CREATE FUNCTION ledger_drop_sessions() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN IF NEW.stream LIKE 'session-%' THEN RETURN NULL; END IF; RETURN NEW; END $$
                """)
            try admin.execute("""
                CREATE FUNCTION ledger_delete_sessions() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN DELETE FROM ledger_events WHERE seq = NEW.seq AND stream LIKE 'session-%'; RETURN NULL; END $$
                """)
            try admin.execute("CREATE TABLE ledger_elsewhere (line text)")
            try admin.execute(hook)
            let before = try pg.export().stdout
            let refused = try pg.run(["login", "--email", email, "--password-stdin"], stdin: "correct horse 1\n")
            #expect(refused.status == 1 && refused.stderr.contains("trigger or rule of its own, row-level security") && refused.stderrLines.count == 1,
                    "\(refused)")
            #expect(!refused.stdout.contains("token"), "\(refused)")
            #expect(try pg.export().stdout == before, "nothing stored")
            #expect(try admin.execute("SELECT count(*) FROM ledger_elsewhere").int(0, 0) == 0)
            let verified = try pg.run(["verify"])
            #expect(verified.status == 1 && verified.stdout.contains("trigger or rule"), "\(verified)")
            try admin.execute(change[1])
            #expect(try pg.run(["login", "--email", email, "--password-stdin"], stdin: "correct horse 1\n").status == 0)
        }
    }
}
