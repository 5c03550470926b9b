import Foundation
import Synchronization
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - PostgresSchemaMigrationTests

/// Schema 3 names the password line's column `password_seq` (it was `created_seq`); schema 4 ties
/// `ledger_events`' `seq`, `id` and `stream` to the line (`PostgresSchema.lineGuard`). An older
/// store is migrated by `ledger init` and by the first write or sign-in of this build, read as it is
/// by `verify` (which writes nothing), and a store a newer build migrated is refused with one clear line.
@Suite struct PostgresSchemaMigrationTests {
    static let password = "correct horse 1"

    /// Turns the store back into what a schema 2 build left: the column under its first name and
    /// `schema_version` 2.
    private static func makeSchemaTwo(_ url: PostgresURL) throws {
        let connection = try PostgresConnection(url)
        try connection.execute("ALTER TABLE ledger_accounts RENAME COLUMN password_seq TO created_seq")
        try connection.execute("UPDATE ledger_store SET schema_version = 2")
        try dropPostgresLineGuards(url)  // schema 4's
    }

    /// The column's name and the schema version the store has.
    private static func schema(_ url: PostgresURL) throws -> (column: String?, version: String?) {
        let connection = try PostgresConnection(url)
        let column = try connection.execute("""
            SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()
              AND table_name = 'ledger_accounts' AND column_name IN ('created_seq', 'password_seq')
            """)
        let version = try connection.execute("SELECT schema_version FROM ledger_store")
        return (column.count == 1 ? column.string(0, 0) : nil, version.string(0, 0))
    }

    @Test func anInitMadeStoreIsOfThisBuildsSchema() throws {
        try withPostgresLedger { pg in
            let seen = try Self.schema(pg.url)
            #expect(seen.column == "password_seq" && seen.version == String(PostgresSchema.version), "\(seen)")
            #expect(try Self.lineGuard(pg.url) == "valid")
        }
    }

    @Test(arguments: ["init", "register", "login", "verify"])
    func aSchemaTwoStoreIsMigratedByWritersAndReadAsItIsByVerify(_ command: String) throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail()
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Two"), stdin: Self.password + "\n").status == 0)
            try Self.makeSchemaTwo(pg.url)
            let ran: ProcessResult
            switch command {
            case "register": ran = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "Three"), stdin: Self.password + "\n")
            case "login": ran = try pg.run(["login", "--email", email, "--password-stdin", "--json"], stdin: Self.password + "\n")
            case "verify": ran = try pg.run(["verify", "--json"])
            default: ran = try pg.run([command])
            }
            #expect(ran.status == 0, "\(command): \(ran)")
            let seen = try Self.schema(pg.url)
            if command == "verify" {
                // A check writes nothing: the store stays as it was, and its tables agree with the log.
                #expect(seen.column == "created_seq" && seen.version == "2", "\(seen)")
                #expect(try Self.lineGuard(pg.url) == nil)
                #expect(!ran.stdout.contains("cache-mismatch"), "\(ran)")
            } else {
                #expect(seen.column == "password_seq" && seen.version == String(PostgresSchema.version), "\(command): \(seen)")
                #expect(try Self.lineGuard(pg.url) == "valid", "\(command)")
            }
            // Whatever migrated it, the account signs in (its password line found by the renamed column).
            let login = try pg.run(["login", "--email", email, "--password-stdin", "--json"], stdin: Self.password + "\n")
            #expect(login.status == 0, "\(login)")
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    /// Where the constraint tying the columns to the line stands: `valid`, `added`, or nil when absent.
    private static func lineGuard(_ url: PostgresURL) throws -> String? {
        let result = try PostgresConnection(url).execute("SELECT \(PostgresSchema.lineGuardQuery)")
        return result.isNull(0, 0) ? nil : result.string(0, 0)
    }

    /// A schema 3 store (no constraint tying the columns to the line) one of whose rows was moved to
    /// another stream by its column: the migration adds the constraint and fails to validate it, so
    /// writers refuse the store in one line, appending nothing, until the row says what its line
    /// does; `ledger init` then validates it and writers go on.
    @Test(arguments: ["init", "register"])
    func aSchemaThreeStoreWithAMovedRowIsRefusedUntilTheRowIsPutBack(_ command: String) throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail("three")
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Three"), stdin: Self.password + "\n").status == 0)
            try dropPostgresLineGuards(pg.url)
            let admin = try PostgresConnection(pg.url)
            try admin.execute("UPDATE ledger_store SET schema_version = 3")
            let stream = try #require(try admin.execute("SELECT stream FROM ledger_events WHERE seq = 2").string(0, 0))
            try admin.execute("UPDATE ledger_events SET stream = 'registration-00000000-0000-4000-8000-000000000000' WHERE seq = 2")
            let before = try pg.export().stdout
            let refused = command == "init" ? try pg.run(["init"])
                : try pg.run(LedgerDir.registerArguments(email: uniqueEmail("four"), username: "Four"), stdin: Self.password + "\n")
            #expect(refused.status == 1 && refused.stderr.contains("verify --store") && refused.stderrLines.count == 1, "\(refused)")
            #expect(try pg.export().stdout == before, "nothing appended")
            #expect(try Self.lineGuard(pg.url) == "added", "the constraint guards every edit from now on")
            #expect(refusedByTheLineGuard(pg.url, "UPDATE ledger_events SET stream = 'x' WHERE seq = 1"))
            try admin.execute("UPDATE ledger_events SET stream = $1 WHERE seq = 2", [stream])
            #expect(try pg.run(["init"]).status == 0)
            #expect(try Self.lineGuard(pg.url) == "valid")
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail("five"), username: "Five"), stdin: Self.password + "\n").status == 0)
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    /// Eight registrations started at once on a schema 3 store (no guards, no `prior_seq`) and an
    /// `init` beside them: each migrates or waits for the one that does, every registration
    /// succeeds once, and the store ends guarded, intact and holding them all.
    @Test func registrationsRacingTheMigrationAllLandOnAGuardedStore() throws {
        try withPostgresLedger { pg in
            let admin = try PostgresConnection(pg.url)
            try admin.execute("ALTER TABLE ledger_events DROP COLUMN prior_seq CASCADE, DROP CONSTRAINT \(PostgresSchema.lineGuard)")
            try admin.execute("UPDATE ledger_store SET schema_version = 3")
            #expect(try Self.lineGuard(pg.url) == nil)
            let results = Mutex<[Int: ProcessResult]>([:])
            DispatchQueue.concurrentPerform(iterations: 9) { n in
                let ran = n == 8 ? try? pg.run(["init"])
                    : try? pg.run(LedgerDir.registerArguments(email: "race\(n)@example.com", username: "Race \(n)"), stdin: Self.password + "\n")
                if let ran { results.withLock { $0[n] = ran } }
            }
            let all = results.withLock { $0 }
            #expect(all.count == 9 && all.values.allSatisfy { $0.status == 0 && $0.stderr.isEmpty }, "\(all)")
            #expect(try Self.lineGuard(pg.url) == "valid")
            #expect(try Self.schema(pg.url).version == String(PostgresSchema.version))
            let users = try pg.run(["users", "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(Set(rows.compactMap { $0["email"] as? String }) == Set((0..<8).map { "race\($0)@example.com" }), "\(users)")
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    @Test func aStoreOfANewerSchemaIsRefusedInOneLine() throws {
        try withPostgresLedger { pg in
            try PostgresConnection(pg.url).execute("UPDATE ledger_store SET schema_version = \(PostgresSchema.version + 1)")
            let refused = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "New"), stdin: Self.password + "\n")
            #expect(refused.status != 0, "\(refused)")
            #expect(refused.stderr.contains("newer ledger") && refused.stderr.contains("schema \(PostgresSchema.version + 1)"), "\(refused)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        }
    }

    /// Reads too: a build that predates the store's schema could misread its lines and tables, so
    /// every command refuses it (exit 3, `store-unavailable`, one line naming the schema), and
    /// reads it again once the schema is one it knows.
    @Test func everyReadAndWriteRefusesAStoreOfANewerSchema() throws {
        try withPostgresLedger { pg in
            let email = uniqueEmail()
            #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "Old"), stdin: Self.password + "\n").status == 0)
            let before = try pg.run(["replay", "--json"])
            try PostgresConnection(pg.url).execute("UPDATE ledger_store SET schema_version = \(PostgresSchema.version + 1)")
            let commands: [([String], String?)] = [
                (["replay"], nil), (["replay", "--json"], nil), (["users", "--json"], nil), (["sessions", "--json"], nil),
                (["images", "--json"], nil), (["audit", "--json"], nil), (["verify", "--json"], nil), (["export"], nil),
                (["events", "--json"], nil), (["init"], nil), (["login", "--email", email, "--password-stdin", "--json"], Self.password + "\n"),
            ]
            for (arguments, stdin) in commands {
                let refused = try pg.run(arguments, stdin: stdin)
                #expect(refused.status == 3, "\(arguments): \(refused)")
                #expect(refused.stderr.contains("newer ledger") && refused.stderr.contains("schema \(PostgresSchema.version + 1)"), "\(arguments): \(refused)")
                #expect(refused.stderr.split(separator: "\n").count == 1 && !refused.stderr.contains("server is running"), "\(arguments): \(refused)")
                if arguments.contains("--json") {
                    #expect(refused.stdout.contains("\"store-unavailable\""), "\(arguments): \(refused)")
                } else {
                    #expect(refused.stdout.isEmpty, "\(arguments): \(refused)")
                }
            }
            try PostgresConnection(pg.url).execute("UPDATE ledger_store SET schema_version = \(PostgresSchema.version)")
            let after = try pg.run(["replay", "--json"])
            #expect(after.status == 0 && after.stdout == before.stdout, "\(after)")
        }
    }

    /// A `ledger_store` this build cannot read its versions from (no build writes these: a newer
    /// one, or a hand) is refused as a newer store is, by reads, writers and `init` alike, and
    /// `init` changes nothing in it.
    @Test(arguments: [
        "ALTER TABLE ledger_store DROP CONSTRAINT ledger_store_one_check; INSERT INTO ledger_store (one, schema_version, data_version) VALUES (false, 4, 2)",
        "ALTER TABLE ledger_store ALTER COLUMN data_version DROP NOT NULL; UPDATE ledger_store SET data_version = NULL",
        "ALTER TABLE ledger_store ALTER COLUMN schema_version TYPE numeric; UPDATE ledger_store SET schema_version = 4.5",
        "ALTER TABLE ledger_store RENAME COLUMN schema_version TO schema_generation",
        "UPDATE ledger_store SET schema_version = -1",
    ])
    func aVersionRowThisBuildCannotReadIsRefused(_ edit: String) throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "Old"), stdin: Self.password + "\n").status == 0)
            let admin = try PostgresConnection(pg.url)
            for statement in edit.split(separator: ";") { try admin.execute(String(statement)) }
            let before = try admin.execute("SELECT string_agg(row_to_json(s)::text, ';' ORDER BY row_to_json(s)::text) FROM ledger_store s").string(0, 0)
            for arguments in [["users", "--json"], ["replay"], ["export"], ["init"], LedgerDir.registerArguments(email: uniqueEmail(), username: "New")] {
                let refused = try pg.run(arguments, stdin: Self.password + "\n")
                #expect(refused.status == 3 && refused.stderr.split(separator: "\n").count == 1, "\(edit): \(arguments): \(refused)")
                #expect(refused.stderr.contains("ledger_store holds") && !refused.stderr.contains("server is running"), "\(edit): \(arguments): \(refused)")
            }
            #expect(try admin.execute("SELECT string_agg(row_to_json(s)::text, ';' ORDER BY row_to_json(s)::text) FROM ledger_store s").string(0, 0) == before, "\(edit): nothing changed it")
        }
    }

    /// `export --keys` of a store it cannot read the data version of says why (a newer schema here),
    /// instead of calling it a version 1 store that has no keys.
    @Test func exportingTheKeysOfANewerStoreSaysSo() throws {
        try withPostgresLedger { pg in
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "K"), stdin: Self.password + "\n").status == 0)
            try PostgresConnection(pg.url).execute("UPDATE ledger_store SET schema_version = \(PostgresSchema.version + 1)")
            let refused = try pg.run(["export", "--keys", pg.dir.path + "/keys.copy"])
            #expect(refused.status == 3 && refused.stderr.contains("newer ledger") && !refused.stderr.contains("data version 1"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: pg.dir.path + "/keys.copy"))
        }
    }

    /// A follower started before another host migrated the store stops at its next wake-up with
    /// the refusal every new connection gives, instead of reading on.
    @Test func aFollowerStopsWhenTheStoreIsMigratedByANewerBuild() throws {
        try withPostgresLedger { pg in
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--json", "--store", pg.url.text, "--data", pg.dir.path])
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "F"), stdin: Self.password + "\n").status == 0)
            #expect(try follower.waitUntil(seconds: 20) { try $0.stdout().split(separator: "\n").count >= 3 })
            let admin = try PostgresConnection(pg.url)
            try admin.execute("UPDATE ledger_store SET schema_version = \(PostgresSchema.version + 1)")
            try admin.execute("NOTIFY \(PostgresSchema.channel)")
            let result = try follower.wait(seconds: 20)
            #expect(result.status == 3 && result.stderr.contains("newer ledger") && result.stderrLines.count == 1, "\(result)")
            #expect(result.stdoutLines.count == 4 && result.stdoutLines.last?.contains("\"store-unavailable\"") == true, "the events, then the refusal: \(result)")
        }
    }
}
