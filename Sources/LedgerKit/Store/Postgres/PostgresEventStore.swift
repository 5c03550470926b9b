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
    private var open: PostgresConnection?
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
        return StoreError(.io, "PostgreSQL refused \(what): \(error.message)")
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
    public func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
        let decoded = try StreamAppend.validate(parts)
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try appendOnce(parts, decoded, condition: condition)
            } catch let missing as SchemaBehind where attempts < 4 {
                switch missing {
                case .accountTables: try catchUpAccounts()
                case .dataVersionTables:
                    do { try Self.migrate(try connection()) } catch { throw storeError(error, during: "applying the data version 2 migration") }
                case .legacyStatusCheck:
                    do {
                        try Self.dropLegacyStatusCheck(try connection())
                    } catch {
                        throw storeError(error, during: "dropping the older status constraint of ledger_accounts")
                    }
                }
            }
        }
    }

    /// Thrown by `appendOnce` (after its rollback) when the store lacks what this build adds to it.
    private enum SchemaBehind: Error {
        /// The account-state tables are missing.
        case accountTables
        /// `ledger_store` or `ledger_keys` is missing, or `ledger_store` has no row.
        case dataVersionTables
        /// An older database's status constraint refused a row.
        case legacyStatusCheck
    }

    private func appendOnce(_ parts: [StreamAppend], _ decoded: [LedgerEvent], condition: AppendCondition?) throws -> [RecordedEvent] {
        var connection = try connection()
        var pending: [(envelope: Envelope, event: LedgerEvent)] = []
        do {
            var ids = newIDs(decoded.count)
            var accounts = PostgresAccounts(connection: connection)
            var reads: AppendReads
            do {
                reads = try Self.readForAppend(connection, parts, decoded, ids: ids, rowsOf: accounts)
            } catch let error as PostgresError where error.connectionLost {
                // A connection the server dropped while idle (restart, idle timeout) is only found out
                // by using it; these reads wrote nothing, so connecting again and retrying once is safe.
                open = nil
                connection = try self.connection()
                accounts = PostgresAccounts(connection: connection)
                reads = try Self.readForAppend(connection, parts, decoded, ids: ids, rowsOf: accounts)
            }
            guard let store = reads.store else { throw SchemaBehind.dataVersionTables }
            let keys = PostgresAppendKeys(connection: connection, preloaded: reads.keys)
            let mark = reads.mark
            let head = mark.head, lastAt = mark.lastAt
            // The account state first catches up with lines appended without it (the rows read with
            // the head are then stale); `.uniqueEmails` then asks it, under the lock; a folded
            // condition is fed every event it has not seen.
            if mark.folded == head.seq {
                reads.rows.forEach { accounts.absorb($0.query, $0.result) }
            } else {
                try Self.catchUp(accounts, from: mark, connection, opener: keyRing)
            }
            if let folded = condition?.folded, folded.position < head.seq {
                try Self.forEachEvent(connection, from: folded.position + 1, through: head.seq, opener: keyRing) { folded.observe($0); return true }
            }
            for (part, version) in zip(parts, reads.versions) {
                guard part.expected.accepts(version) else {
                    throw StoreError.wrongVersion(stream: part.stream, expected: part.expected, actual: version)
                }
                try condition?.check(part) { email in
                    let live = accounts.holdsLiveAccount(email: email)
                    try accounts.check()
                    return live
                }
            }
            if reads.idsTaken { ids = try freshIDs(decoded.count, connection) }
            var chain = head
            var at = max(clock.now(), lastAt ?? Timestamp(millis: 0))
            var rows: [[String?]] = []
            // The lines a file store would write for the batch, `batch` marks included: one transaction
            // is all or nothing already, but the lines stay the same bytes in either store.
            let marks = BatchMark.marks(count: decoded.count)
            for (part, version) in zip(parts, reads.versions) {
                for (position, event) in part.events.enumerated() {
                    let type = event.type, id = ids[pending.count]
                    let batch = marks[pending.count].isUnmarked ? nil : marks[pending.count]
                    // A version 2 store seals the personal members under their subject's key (made
                    // in this transaction when new); the holder of an email is asked of the account
                    // state as it stands before the batch, as the file store asks its index.
                    var (data, v) = (event.data, type.currentVersion)
                    if store.data >= 2 {
                        let holders = accounts
                        (data, v) = try PersonalDataSealer.seal(event.data, type: type, eventID: id, at: at, keys: keys,
                                                                holder: { AccountFold.liveAccount(of: holders.emailKey($0), in: holders) },
                                                                random: random)
                        try accounts.check()
                    }
                    let body = LineCodec.body(seq: chain.seq + 1, id: id, at: at, type: type.rawValue, v: v,
                                              stream: part.stream, batch: batch, data: data, prev: chain.hash)
                    let hash = SHA256.hex(body)
                    let envelope = Envelope(seq: chain.seq + 1, id: id, at: at, type: type.rawValue, v: v,
                                            stream: part.stream, batch: batch, data: data, prev: chain.hash, hash: hash)
                    var line = LineCodec.line(body: body, hash: hash)
                    line.removeLast()  // the newline is the file's separator, not part of the stored line
                    rows.append(Self.row(envelope, streamPosition: version + position + 1, line: String(decoding: line, as: UTF8.self)))
                    pending.append((envelope, decoded[pending.count]))
                    chain = Head(seq: chain.seq + 1, hash: hash)
                    at = max(at, clock.now())
                }
            }
            let erasing = Set(decoded.compactMap(\.erasedSubject))
            if erasing.isEmpty {
                // The lines, their new keys, the account state they lead to and NOTIFY in one round
                // trip; COMMIT is sent only once they all succeeded, so a failure before it leaves nothing stored.
                try accounts.apply(pending.map { ViewEvent(RecordedEvent(envelope: $0.envelope, event: $0.event)) })
                try connection.pipeline(Self.insertStatements(rows) + keys.insertStatements
                                        + accounts.flushStatements(through: chain, notify: String(chain.seq)))
            } else {
                // An erasure: its subjects' keys and every cache that may hold their data go in the
                // same transaction as its lines (`+Erasure`).
                try connection.pipeline(Self.insertStatements(rows) + keys.insertStatements + Self.erasureStatements(erasing))
                try Self.refoldAccounts(connection, through: chain, opener: keys.opener(erasing: erasing, ring: keyRing),
                                        notify: String(chain.seq))
            }
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            if let behind = error as? SchemaBehind { throw behind }
            if Self.isMissingTable(error), connection.isOpen, (try? Self.lacksAccountTables(connection)) == true {
                throw SchemaBehind.accountTables
            }
            if Self.isMissingTable(error), connection.isOpen, (try? Self.lacksDataVersionTables(connection)) == true {
                throw SchemaBehind.dataVersionTables
            }
            if Self.isLegacyStatusCheck(error) { throw SchemaBehind.legacyStatusCheck }
            if let error = error as? PostgresError, error.isUniqueViolation, error.constraint == "ledger_events_stream_position" {
                let streams = parts.map { "\($0.stream) (expected \($0.expected))" }.joined(separator: ", ")
                throw StoreError(.wrongExpectedVersion, "wrong expected version for \(streams): another append took that position")
            }
            throw storeError(error, during: "the append")
        }
        do {
            try connection.execute("COMMIT")
        } catch let error as PostgresError where error.connectionLost {
            open = nil
            throw StoreError(.notDurable, "\(error.message) during COMMIT: the batch may or may not be stored; run `ledger recover`")
        } catch {
            throw storeError(error, during: "the append's COMMIT")
        }
        let recorded = pending.map { RecordedEvent(envelope: $0.envelope, event: $0.event) }
        recorded.forEach { condition?.folded?.observe($0) }
        return recorded
    }

    /// `count` random ids, none repeated in the batch (`readForAppend` asks whether the log has one).
    private func newIDs(_ count: Int) -> [String] {
        var ids: [String] = []
        while ids.count < count {
            let id = Identifiers.uuid(fromRandom: random.bytes(16))
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// `count` random ids, none already in the table or repeated in the batch (the unique constraint is the backstop).
    private func freshIDs(_ count: Int, _ connection: PostgresConnection) throws -> [String] {
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

    /// The column values of one event, in `insert`'s column order.
    static func row(_ envelope: Envelope, streamPosition: Int, line: String) -> [String?] {
        [String(envelope.seq), envelope.id, envelope.at.rfc3339, envelope.type, String(envelope.v), envelope.stream,
         String(streamPosition), String(decoding: JSONWriter.bytes(.object(envelope.data)), as: UTF8.self),
         envelope.prev, envelope.hash, line]
    }

    /// Inserts `rows` with one multi-row `INSERT` per 500 rows.
    static func insert(_ rows: [[String?]], _ connection: PostgresConnection) throws {
        for statement in insertStatements(rows) { try connection.execute(statement.sql, statement.parameters) }
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
