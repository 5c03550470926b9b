import LedgerDomain

// MARK: - PostgresPositionCheck

/// `verify`'s check of `ledger_events.stream_position`, the one column beside a line that the line
/// does not hold: the rows of a stream are numbered 1, 2, … in `seq` order (an append reads a
/// stream's version as its highest number, and refuses a stream whose highest number is not its
/// number of rows). The stream of the lines counts each stream's rows as they arrive
/// (`ColumnSuspects.count`); each row it found numbered otherwise is read again here and named, a
/// `cache-mismatch` on its line.
enum PostgresPositionCheck {
    /// The problems of the `suspects` rows of `store`, in seq order (at most `limit`).
    static func problems(_ store: PostgresEventStore, suspects: [Int], limit: Int) throws -> [LogProblem] {
        guard !suspects.isEmpty else { return [] }
        var problems: [LogProblem] = []
        do {
            let connection = try store.connection()
            for seq in suspects.prefix(limit) {
                let row = try connection.execute("""
                    SELECT r.stream_position, (SELECT count(*) FROM ledger_events e WHERE e.stream = r.stream AND e.seq <= r.seq)
                    FROM ledger_events r WHERE r.seq = $1
                    """, [String(seq)])
                guard row.count == 1, let position = row.int(0, 0), let place = row.int(0, 1), position != place else { continue }
                problems.append(LogProblem(line: seq, kind: .cacheMismatch, message:
                    "the row of this line in \(PostgresSchema.eventsTable) holds stream_position \(position) where the line is line \(place) "
                    + "of its stream: an append to the stream refuses positions that do not run 1, 2, …; number its rows so, in seq order"))
            }
        } catch {
            throw store.storeError(error, during: "checking the stream_position column of \(PostgresSchema.eventsTable)")
        }
        return problems
    }
}
