import LedgerDomain

// MARK: - PostgresEventStore: what an append reads

/// An append's reads, sent together in one round trip (a pipeline): `BEGIN`, the append lock, then —
/// under the lock, each statement seeing every append committed before it — the head with the
/// account state's mark, every part's stream version (and its number of rows), whether the batch's ids are taken, the
/// store's versions (`ledger_store`, with what identifies the guards of `PostgresSchema+LineGuard`,
/// and their definitions' check when the store has no memory of them valid), the keys of the subjects the batch names by uid, and the
/// account rows the batch will read. The lines can only be written after this answers: their seq,
/// prev and hash follow from the head.
extension PostgresEventStore {
    /// What `readForAppend` found.
    struct AppendReads {
        /// The head and where the account state stands.
        var mark: AccountMark
        /// Each part's stream version, in the parts' order.
        var versions: [Int]
        /// True when one of the ids is already in the log.
        var idsTaken: Bool
        /// What `ledger_store` says; nil when it has no row.
        var store: StoreVersions?
        /// The rows of `ledger_keys` of the subjects the batch names by uid (`PostgresAppendKeys.preloadQuery`).
        var keys: PostgresResult
        /// The account rows the batch reads, as of the tables (valid only when they are at the head).
        var rows: [(query: PostgresAccounts.LoadQuery, result: PostgresResult)]
    }

    /// Begins the append's transaction on `connection` and reads what it decides on; see the extension's summary.
    static func readForAppend(_ connection: PostgresConnection, _ parts: [StreamAppend], _ decoded: [LedgerEvent], ids: [String],
                              rowsOf accounts: PostgresAccounts, checkingGuards: Bool) throws -> AppendReads {
        let wanted = PostgresAccounts.keys(decoded.map(ViewEvent.Fact.init))
        let loads = accounts.loadQueries(emails: wanted.emails, uids: wanted.uids)
        let statements: [PostgresConnection.Statement] = [
            .init("BEGIN"),
            .init("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey]),
            .init(accountMarkQuery),
            .init("""
                SELECT c.top, c.rows FROM unnest($1::text[]) WITH ORDINALITY AS q(s, n),
                    LATERAL (SELECT coalesce(max(stream_position), 0) AS top, count(*) AS rows FROM ledger_events WHERE stream = q.s) AS c
                ORDER BY q.n
                """, [PostgresAccounts.textArray(parts.map(\.stream))]),
            .init("SELECT count(*) FROM ledger_events WHERE id = ANY($1::uuid[])", [PostgresAccounts.textArray(ids)]),
            checkingGuards ? .init(PostgresSchema.catalogFirst) : .init("SELECT 1"),
            .init(checkingGuards ? storeVersionsAndGuardsQuery : storeVersionsQuery),
            PostgresAppendKeys.preloadQuery(decoded),
        ] + loads.map(\.statement)
        let results = try connection.pipeline(statements)
        let versions = (0..<results[3].count).map { results[3].int($0, 0) ?? 0 }
        guard versions.count == parts.count else { throw StoreError(.io, "PostgreSQL answered \(versions.count) stream versions for \(parts.count) parts") }
        // A stream's rows cannot leave it (`PostgresSchema.lineGuard`), so positions that do not run
        // 1, 2, … mean a row of it was deleted or its position edited: its version is unknown.
        for (k, part) in parts.enumerated() where results[3].int(k, 1) != versions[k] {
            throw StoreError(.damaged, "the rows of stream \(part.stream) in \(PostgresSchema.eventsTable) hold \(results[3].int(k, 1) ?? 0) lines "
                             + "numbered up to \(versions[k]): a row was deleted or its stream_position edited; nothing was appended; "
                             + "`ledger verify --store URL` names the damage")
        }
        return AppendReads(mark: try accountMark(from: results[2], rows: lines(connection)), versions: versions, idsTaken: (results[4].int(0, 0) ?? 0) > 0,
                           store: try storeVersions(from: results[6], withGuards: checkingGuards), keys: results[7], rows: Array(zip(loads, results.dropFirst(8))))
    }
}
