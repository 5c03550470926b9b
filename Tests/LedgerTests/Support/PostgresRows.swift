import Foundation
import LedgerDomain
import LedgerKit

// MARK: - A PostgreSQL store's log as readers decode it, and edits of its rows

extension PostgresLedger {
    /// The store's lines as readers see them: `ledger export`, each line parsed, the personal
    /// members of data version 2 lines opened with the store's keys (`ledger_keys`).
    func events() throws -> [[String: Any]] {
        let exported = try export()
        guard exported.status == 0 else { throw SystemTestError("ledger export failed: \(exported)") }
        return try openedJSONLines(Array(exported.stdout.utf8), opener: PostgresKeyRing(url: url))
    }

    /// The store's keys, as someone who can query its database holds them.
    var keys: FolderKeys { FolderKeys(postgres: url) }
}

/// The rows of `ledger_events` at `url` as envelopes (the `line` column decoded), in `seq` order;
/// `filter` (SQL after WHERE, e.g. `type = 'AccountCreated'`) narrows them.
func postgresEnvelopes(_ url: PostgresURL, where filter: String = "true") throws -> [Envelope] {
    let rows = try PostgresConnection(url).execute("SELECT line FROM ledger_events WHERE \(filter) ORDER BY seq")
    let lines = try (0..<rows.count).map { row in
        guard let line = rows.string(row, 0) else { throw SystemTestError("row \(row) has no line") }
        return line + "\n"
    }
    return try LogRewriting.envelopes(Array(lines.joined().utf8))
}

/// The `AccountCreated` row of `email` at `url` (its email read with the store's keys).
func postgresAccountCreated(_ url: PostgresURL, email: String) throws -> Envelope {
    let keys = FolderKeys(postgres: url)
    guard let row = try postgresEnvelopes(url, where: "type = 'AccountCreated'").first(where: { try keys.text("email", of: $0) == email }) else {
        throw SystemTestError("no AccountCreated row of \(email)")
    }
    return row
}

/// Writes `envelope`'s line, its own hash recomputed, over the row of its `seq` in `ledger_events`
/// at `url` (`line` and `hash`; the other columns kept, as the store reads the line): what an
/// editor of the table writes. The chain is then broken at the next row. Returns the new hash.
@discardableResult
func rewritePostgresRow(_ url: PostgresURL, with envelope: Envelope) throws -> String {
    let body = LogRewriting.body(envelope)
    let hash = SHA256.hex(body)
    let line = String(decoding: LineCodec.line(body: Array(body.utf8), hash: hash).dropLast(), as: UTF8.self)
    let updated = try PostgresConnection(url).execute("UPDATE ledger_events SET line = $1, hash = $2 WHERE seq = $3",
                                                      [line, hash, String(envelope.seq)])
    guard updated.affectedRows == 1 else { throw SystemTestError("no row \(envelope.seq) to rewrite") }
    return hash
}

/// Drops the constraints that keep `ledger_events`' `seq`, `id` and `stream` the line's and every
/// row but the last in place (`PostgresSchema+LineGuard`), as an owner of the table can: what an
/// editor does first to change those columns alone, write a row that is not a JSON line, or delete
/// a row from the middle. Writers then refuse the store.
func dropPostgresLineGuards(_ url: PostgresURL) throws {
    let connection = try PostgresConnection(url)
    try connection.execute("ALTER TABLE ledger_events DROP CONSTRAINT \(PostgresSchema.lineGuard)")
    try connection.execute("ALTER TABLE ledger_events DROP CONSTRAINT \(PostgresSchema.priorLineGuard)")
}

/// True when the server refuses `statement` on `url` naming `guard` (`PostgresSchema.lineGuard`
/// by default).
func refusedByTheLineGuard(_ url: PostgresURL, _ statement: String, _ parameters: [String] = [],
                           guard name: String = PostgresSchema.lineGuard) -> Bool {
    do {
        _ = try PostgresConnection(url).execute(statement, parameters)
        return false
    } catch {
        return "\(error)".contains(name)
    }
}

/// What an owner of `ledger_events` can do to its guards (`PostgresSchema+LineGuard`) under their
/// names: drop one, make one again weaker (a check that holds of every row, a foreign key that
/// cascades), or alter one in place (checked only at commit). Each leaves no guard.
let weakenedLineGuards = [
    "DROP CONSTRAINT ledger_events_prior_line",
    "DROP CONSTRAINT ledger_events_columns_are_the_line, ADD CONSTRAINT ledger_events_columns_are_the_line CHECK (true)",
    "DROP CONSTRAINT ledger_events_columns_are_the_line, ADD CONSTRAINT ledger_events_columns_are_the_line "
        + "CHECK (true OR line::jsonb @> jsonb_build_object('seq', seq, 'id', id::text, 'stream', stream))",
    "ALTER CONSTRAINT ledger_events_prior_line DEFERRABLE INITIALLY DEFERRED",
    "DROP CONSTRAINT ledger_events_prior_line, ADD CONSTRAINT ledger_events_prior_line FOREIGN KEY (prior_seq) REFERENCES ledger_events (seq) ON DELETE CASCADE",
]
