import LedgerDomain

// MARK: - PostgresLookups

/// `StoreLookups` answered by the server inside an append's transaction (under the append lock), so
/// a `register` process asks one question instead of reading every event: an email is live when
/// the latest `AccountCreated` for it has no later `AccountDeleted` of its uid — the `EmailIndex` rule.
final class PostgresLookups: StoreLookups {
    private let connection: PostgresConnection

    init(connection: PostgresConnection) { self.connection = connection }

    /// True when a live account holds `email`.
    func isLive(email: String) throws -> Bool {
        let result = try connection.execute("""
            SELECT NOT EXISTS (
                SELECT 1 FROM ledger_events d
                WHERE d.type = 'AccountDeleted' AND d.data->>'uid' = c.data->>'uid' AND d.seq > c.seq)
            FROM ledger_events c
            WHERE c.type = 'AccountCreated' AND c.data->>'email' = $1
            ORDER BY c.seq DESC LIMIT 1
            """, [email])
        return result.count > 0 && result.string(0, 0) == "t"
    }
}
