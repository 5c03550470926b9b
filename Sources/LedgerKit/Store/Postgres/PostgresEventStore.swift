import LedgerDomain

// MARK: - PostgresEventStore

/// The PostgreSQL backend: one `ledger_events` table shared by every ledger process on every host.
/// An append is one transaction that takes `pg_advisory_xact_lock` (so appenders serialize on the
/// head), reads the head, brings the account-state tables up to it, answers the append condition
/// (`.uniqueEmails` from those tables; a folded one is fed what it has not seen), checks the
/// expected version, inserts the lines (seq, prev and hash computed exactly as the file format
/// does), folds them into the account-state tables and sends `NOTIFY` in one statement, and commits:
/// three round trips (the reads, `readForAppend`; the writes; `COMMIT`). Success is reported only
/// after `COMMIT` returned (`synchronous_commit` on). A lost connection before `COMMIT` rolls the
/// whole batch back on the server.
public final class PostgresEventStore: LedgerStore {
    /// The server (its password is never printed: use `url.redacted`).
    public let url: PostgresURL
    /// Rows fetched per round trip by reads (keyset pages on `seq`).
    public static let pageSize = 5000

    let clock: any Clock
    let random: any RandomSource
    /// The connection in use, nil before the first and after a loss (`connection()` makes one).
    var open: PostgresConnection?
    /// What identified the guards of `PostgresSchema+LineGuard` when this store last found them as
    /// defined and validated (`lineGuardState`).
    var validGuards: String?
    /// When set, this store's appends (but erasures and folded conditions, which go alone) are
    /// handed to this group committer, shared with the other stores of one `Ledger`: its store
    /// appends them with others' in one transaction (`appendGroup`).
    public var groupCommitter: GroupCommitter?
    /// The opener of this store's personal members (`ledger_keys`, shared by the process).
    public var keyRing: PostgresKeyRing { PostgresKeyRing.forStore(url) }

    /// A store over the database at `url` (connected on first use).
    public init(url: PostgresURL, clock: any Clock = SystemClock(), random: any RandomSource = SecureRandom()) {
        self.url = url
        self.clock = clock
        self.random = random
    }

    // MARK: - Connection

    /// The open connection, connecting (again, after a loss) when needed.
    func connection() throws -> PostgresConnection {
        if let open, open.isOpen { return open }
        open = nil
        let made = try PostgresConnection.forStore(url)
        open = made
        return made
    }

    /// Maps a libpq failure to the store's errors; a lost connection also drops the connection.
    func storeError(_ error: any Error, during what: String) -> any Error {
        guard let error = error as? PostgresError else { return error }
        if error.connectionLost {
            open = nil
            return StoreError(.unavailable, "\(error.message) (during \(what); nothing of it was stored)")
        }
        if error.sqlState == "42P01" {
            return StoreError(.unavailable, "\(url.redacted) has no ledger tables; create them with `ledger init --store URL`")
        }
        return StoreError(.io, "PostgreSQL refused \(what): \(error.message)", reason: StoreError.serverRefused)
    }

    /// Creates the tables when missing and applies the data version 2 migration (idempotent), and
    /// folds into the account-state tables the events they lack.
    public func createSchema() throws {
        let connection = try connection()
        do {
            for statement in PostgresSchema.statements { try connection.execute(statement) }
            try Self.migrate(connection)
        } catch {
            throw storeError(error, during: "creating the schema")
        }
        try catchUpAccounts()
    }

    // MARK: - Append

    /// Appends the parts in one transaction serialized on the head; see the type's summary. In a
    /// database from before the account-state tables, creates them first (folding the log into
    /// them) and appends then; in one from before data version 2, applies its migration first.
    /// With a `groupCommitter`, a batch that erases nothing and has no folded condition is handed
    /// to it, and goes in one transaction with the batches other threads append meanwhile.
    public func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
        let decoded = try StreamAppend.validatedData(parts)
        if let groupCommitter, condition?.folded == nil, decoded.allSatisfy({ $0.event.erasedSubject == nil }) {
            var batch = GroupedAppend(parts, condition: condition)
            batch.validated = decoded
            return try groupCommitter.append(batch)
        }
        return try appendTransaction([TransactionBatch(parts: parts, decoded: decoded.map(\.event), condition: condition)])[0].get()
    }

    /// Runs `appendOnce` until the store has what this build adds to it (at most four fixes):
    /// each batch's recorded events or its refusal; throws what failed the transaction as a whole.
    func appendTransaction(_ batches: [TransactionBatch]) throws -> [Result<[RecordedEvent], any Error>] {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try appendOnce(batches)
            } catch let missing as SchemaBehind where attempts < 4 {
                switch missing {
                case .accountTables: try catchUpAccounts()
                case .dataVersionTables, .oldPasswordSeqColumn, .lineGuard:
                    do { try Self.migrate(try connection()) } catch { throw storeError(error, during: "applying the data version 2 and schema 3 and 4 migrations") }
                case .legacyStatusCheck:
                    do {
                        try Self.dropLegacyStatusCheck(try connection())
                    } catch {
                        throw storeError(error, during: "dropping the older status constraint of ledger_accounts")
                    }
                }
            } catch let missing as SchemaBehind {
                // Still behind after its fixes: the tables are not what any build's migrations leave.
                throw StoreError(.unavailable, "the store's tables are not as `ledger init` makes them (\(missing.described)) after "
                                 + "its migrations ran: run `ledger init --store URL` and `ledger verify --store URL`")
            }
        }
    }

    /// Thrown by `appendOnce` (after its rollback) when the store lacks what this build adds to it.
    enum SchemaBehind: Error {
        /// The account-state tables are missing.
        case accountTables
        /// `ledger_store` or `ledger_keys` is missing, or `ledger_store` has no row.
        case dataVersionTables
        /// An older database's status constraint refused a row.
        case legacyStatusCheck
        /// A store of schema 2: the password line's column has its first name.
        case oldPasswordSeqColumn
        /// A store of schema 3, or one whose guards (`PostgresSchema+LineGuard`) are not validated yet.
        case lineGuard

        /// What is missing, in the store's terms.
        var described: String {
            switch self {
            case .accountTables: "the account-state tables are missing"
            case .dataVersionTables: "ledger_store or ledger_keys is missing, or ledger_store has no row"
            case .legacyStatusCheck: "an older status constraint of ledger_accounts refused a row"
            case .oldPasswordSeqColumn: "ledger_accounts still has created_seq"
            case .lineGuard: "the guards of ledger_events are missing or not validated"
            }
        }
    }

    /// The refusal of a store whose `ledger_events` has hooks of its own (`PostgresSchema.ownHooks`).
    static var hooked: StoreError {
        StoreError(.damaged, hookedMessage + ": nothing was appended")
    }

    /// What `hooked` and `verify` say of such a table.
    static let hookedMessage = "\(PostgresSchema.eventsTable) has a trigger or rule of its own, row-level security, or its foreign key's triggers "
        + "disabled, which could change, drop, send elsewhere or hide a row after ledger checks it; drop or undo it "
        + "(`\\d \(PostgresSchema.eventsTable)` in psql lists them)"

    /// The refusal of a store of schema 4 or later that lost a guard of `PostgresSchema+LineGuard`:
    /// the columns appends decide on may no longer say what the lines do, or a row may be gone.
    static var unguarded: StoreError {
        StoreError(.damaged, "\(PostgresSchema.eventsTable) lacks its constraint \(PostgresSchema.lineGuard) or \(PostgresSchema.priorLineGuard) "
                   + "as ledger defines them, which keep the seq, id and stream columns appends decide on what each line says "
                   + "and every row but the last in place: nothing was appended; run `ledger verify --store URL`, "
                   + "then `ledger init --store URL` to add them back")
    }

    /// `count` random ids, none repeated in the batch (`readForAppend` asks whether the log has one).
    func newIDs(_ count: Int) -> [String] {
        var ids: [String] = []
        while ids.count < count {
            let id = Identifiers.uuid(fromRandom: random.bytes(16))
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// `count` random ids, none already in the table or repeated in the batch (the unique constraint is the backstop).
    func freshIDs(_ count: Int, _ connection: PostgresConnection) throws -> [String] {
        var ids: [String] = []
        var tries = 0
        while ids.count < count {
            guard tries < count + 8 else { throw StoreError(.io, "the random source keeps repeating event ids; refusing to append") }
            tries += 1
            let id = Identifiers.uuid(fromRandom: random.bytes(16))
            guard !ids.contains(id) else { continue }
            let taken = try connection.execute("SELECT 1 FROM ledger_events WHERE id = $1::uuid", [id]).count > 0
            if !taken { ids.append(id) }
        }
        return ids
    }

    // MARK: - Rows

    /// The `at` column's text of `time`: its RFC 3339 form, but for the year 0000 a log may hold,
    /// which PostgreSQL has no number for: the same year is its 1 BC. (No query reads the column;
    /// the line is what counts.)
    static func timestamptz(_ time: Timestamp) -> String {
        let text = time.rfc3339
        return text.hasPrefix("0000-") ? "0001" + text.dropFirst(4) + " BC" : text
    }

    /// The column values of one event, in `insert`'s column order.
    static func row(_ envelope: Envelope, streamPosition: Int, line: String) -> [String?] {
        [String(envelope.seq), envelope.id, timestamptz(envelope.at), envelope.type, String(envelope.v), envelope.stream,
         String(streamPosition), String(decoding: JSONWriter.bytes(.object(envelope.data)), as: UTF8.self),
         envelope.prev, envelope.hash, line]
    }

    /// Inserts `rows` with one multi-row `INSERT` per 500 rows.
    static func insert(_ rows: [[String?]], _ connection: PostgresConnection) throws {
        try requireStored(rows.count, by: try insertStatements(rows).map { try connection.execute($0.sql, $0.parameters) })
    }

    /// Throws unless the `INSERT`s whose results are `results` stored `count` rows in all: a trigger
    /// on `ledger_events` that drops a row would otherwise have a line acknowledged that is not stored.
    static func requireStored<Results: Collection<PostgresResult>>(_ count: Int, by results: Results) throws {
        let stored = results.reduce(0) { $0 + $1.affectedRows }
        guard stored == count else {
            throw StoreError(.io, "PostgreSQL stored \(stored) of the \(count) lines inserted into \(PostgresSchema.eventsTable) (a trigger on the "
                             + "table?): nothing was stored", reason: StoreError.rowsNotStored)
        }
    }

    /// The statements of `insert`.
    static func insertStatements(_ rows: [[String?]]) -> [PostgresConnection.Statement] {
        var statements: [PostgresConnection.Statement] = []
        var start = 0
        while start < rows.count {
            let page = rows[start..<min(rows.count, start + 500)]
            var values: [String] = []
            var parameters: [String?] = []
            for row in page {
                let n = parameters.count
                values.append("($\(n + 1)::bigint, $\(n + 2)::uuid, $\(n + 3)::timestamptz, $\(n + 4), $\(n + 5)::integer, $\(n + 6), "
                              + "$\(n + 7)::integer, $\(n + 8)::jsonb, $\(n + 9), $\(n + 10), $\(n + 11))")
                parameters += row
            }
            statements.append(.init("INSERT INTO ledger_events (seq, id, at, type, v, stream, stream_position, data, prev, hash, line) VALUES "
                                    + values.joined(separator: ", "), parameters))
            start += page.count
        }
        return statements
    }
}
