import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - PostgresSchemaMigrationTests

/// Schema 3 names the password line's column `password_seq` (it was `created_seq`). A store of
/// schema 2 is migrated by `ledger init` and by the first write or sign-in of a build that knows
/// schema 3, read as it is by `verify` (which writes nothing), and a store a newer build migrated is
/// refused with one clear line.
@Suite struct PostgresSchemaMigrationTests {
    static let password = "correct horse 1"

    /// Turns the store back into what a schema 2 build left: the column under its first name and
    /// `schema_version` 2.
    private static func makeSchemaTwo(_ url: PostgresURL) throws {
        let connection = try PostgresConnection(url)
        try connection.execute("ALTER TABLE ledger_accounts RENAME COLUMN password_seq TO created_seq")
        try connection.execute("UPDATE ledger_store SET schema_version = 2")
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

    @Test func anInitMadeStoreIsSchemaThree() throws {
        try withPostgresLedger { pg in
            let seen = try Self.schema(pg.url)
            #expect(seen.column == "password_seq" && seen.version == "3", "\(seen)")
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
                #expect(!ran.stdout.contains("cache-mismatch"), "\(ran)")
            } else {
                #expect(seen.column == "password_seq" && seen.version == "3", "\(command): \(seen)")
            }
            // Whatever migrated it, the account signs in (its password line found by the renamed column).
            let login = try pg.run(["login", "--email", email, "--password-stdin", "--json"], stdin: Self.password + "\n")
            #expect(login.status == 0, "\(login)")
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
}
