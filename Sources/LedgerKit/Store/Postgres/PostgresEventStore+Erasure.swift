import LedgerDomain

// MARK: - PostgresEventStore: erasure

/// An append whose batch holds `PersonalDataErased` erases in its own transaction, after inserting
/// its lines: the subjects' rows of `ledger_keys` lose their key and are marked erased (a subject
/// without a row gets an erased one, so it never gets a key again); the caches that may hold their
/// data in clear or as an unkeyed hash go: the views checkpoint (`ledger_checkpoints`, emptied:
/// reads rebuild it), the pending sign-in checks of the emails the account held
/// (`ledger_signin_pending`, keyed by the email's SHA-256; not of an email another account was
/// created with or moved to since, whose check is that account's), and the account-state tables, emptied and
/// folded again from the whole log with the erased subjects' members read as erased. Either all of
/// it commits with the lines, or none of it. What the log says afterwards is what every table says.
extension PostgresEventStore {
    /// The statements that erase `subjects` (account subjects) in the append's transaction, before
    /// the account-state tables are folded again (`refoldAccounts`).
    static func erasureStatements(_ subjects: Set<SubjectID>) -> [PostgresConnection.Statement] {
        let sorted = subjects.map(\.text).sorted()
        let uids = sorted.compactMap { $0.hasPrefix("account-") ? String($0.dropFirst(8)) : nil }
        return [
            .init("""
                INSERT INTO ledger_keys (subject, erased, key) SELECT s, true, NULL FROM unnest($1::text[]) AS s
                ON CONFLICT (subject) DO UPDATE SET erased = true, key = NULL
                """, [PostgresAccounts.textArray(sorted)]),
            .init("""
                DELETE FROM ledger_signin_pending
                WHERE split_part(coalesce(outcome, ''), ':', 1) = ANY($1::text[])
                   OR email_key IN (SELECT encode(sha256(convert_to(e.email, 'UTF8')), 'hex')
                                    FROM ledger_account_emails AS e WHERE e.last_uid = ANY($1::uuid[]))
                """, [PostgresAccounts.textArray(uids)]),
            .init("TRUNCATE ledger_checkpoints"),
        ]
    }

    /// Empties the account-state tables and folds the whole log (its lines of this transaction
    /// included) into them again, `opener` reading the erased subjects' members as erased; records
    /// `head` and sends `notify` on the channel.
    static func refoldAccounts(_ connection: PostgresConnection, through head: Head, opener: any PersonalDataOpener,
                               notify: String) throws {
        let accounts = PostgresAccounts(connection: connection)
        try catchUp(accounts, from: AccountMark(head: head, lastAt: nil, folded: nil), connection, opener: opener)
        try accounts.flush(through: head, notify: notify)
    }

    /// The append that holds the erasure events destroyed the keys in its transaction; this forgets
    /// them in this process's key ring and asks the server to reclaim the old row versions of the
    /// key table (best effort: `VACUUM` needs the table's owner; autovacuum does it otherwise). A
    /// subject whose key is still live (its erasure event is not in the log) is refused.
    public func destroyKeys(of subjects: [SubjectID]) throws {
        guard !subjects.isEmpty else { return }
        let connection = try connection()
        let live: PostgresResult
        do {
            live = try connection.execute("SELECT subject FROM ledger_keys WHERE subject = ANY($1::text[]) AND NOT erased",
                                          [PostgresAccounts.textArray(subjects.map(\.text))])
        } catch {
            throw storeError(error, during: "checking that the keys were destroyed")
        }
        for subject in subjects { keyRing.forget(subject) }
        guard live.count == 0 else {
            throw StoreError(.invalidBatch, "the key of \(live.string(0, 0) ?? "") is still live: its erasure event was not appended")
        }
        _ = try? connection.execute("VACUUM ledger_keys")
    }
}

// MARK: - Keys a restored table brought back

extension PostgresEventStore {
    /// `ledger recover`'s sweep: the subjects whose erasure events the whole verified log holds but
    /// whose rows of `ledger_keys` still hold a key (the table restored from a backup taken before
    /// the erasure) lose it, and in the same transaction, under the append lock, what an erasure
    /// drops goes (`erasureStatements`) and the account-state tables are folded again from the
    /// whole log, its erasures winning (tables folded with the restored key held the erased data).
    /// Returns them, sorted.
    /// (PostgreSQL destroys an erasure's keys in the transaction that appends its event: none is
    /// ever cut short.)
    public func destroyKeysTheLogErased() throws -> DestroyedKeys {
        let erased = Set(try scanViews(wanted: { $0.fact.erasedSubject != nil }, visit: { _, _ in }).compactMap(\.event.erasedSubject))
        guard !erased.isEmpty else { return DestroyedKeys() }
        let connection = try connection()
        let destroyed: [SubjectID]
        do {
            destroyed = try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
                // A history rewritten under the account-state tables (their mark names another hash
                // for a line the log holds): its erasure events may be forgeries; nothing is
                // destroyed because of them, and the tables stay as the evidence writers refuse on.
                _ = try Self.accountMark(connection)
                let rows = try connection.execute(
                    "UPDATE ledger_keys SET erased = true, key = NULL WHERE subject = ANY($1::text[]) AND NOT erased RETURNING subject",
                    [PostgresAccounts.textArray(erased.map(\.text).sorted())])
                let destroyed = (0..<rows.count).compactMap { rows.string($0, 0).flatMap(SubjectID.init) }.sorted { $0.text < $1.text }
                guard !destroyed.isEmpty else { return destroyed }
                for statement in Self.erasureStatements(Set(destroyed)) { try connection.execute(statement.sql, statement.parameters) }
                try connection.execute("DELETE FROM ledger_account_state")
                try Self.bringAccountsUpToDate(connection, opener: LogErasuresOpener(base: keyRing, erased: erased))
                return destroyed
            }
        } catch {
            throw storeError(error, during: "destroying the keys of erased subjects")
        }
        for subject in destroyed { keyRing.forget(subject) }
        if !destroyed.isEmpty { _ = try? connection.execute("VACUUM ledger_keys") }
        return DestroyedKeys(restored: destroyed)
    }
}

extension PostgresEventStore {
    /// True when `ledger_keys` still holds a key of one of `subjects` (one query): subjects the log
    /// erased, so the table was restored from a backup taken before their erasure.
    public func holdsLiveKeys(of subjects: Set<SubjectID>) throws -> Bool {
        guard !subjects.isEmpty else { return false }
        let rows = try connection().execute("SELECT 1 FROM ledger_keys WHERE subject = ANY($1::text[]) AND NOT erased LIMIT 1",
                                            [PostgresAccounts.textArray(subjects.map(\.text).sorted())])
        return rows.count > 0
    }

    /// The erasures of `recorded` (a checkpoint's) whose subject `ledger_keys` still holds a key of
    /// and whose line the log holds at their seq (`ErasureLine`): two queries at most, one when no
    /// such key is left (a forged record of a live subject is looked up in the log, and not taken).
    public func restoredKeys(of recorded: [RecordedErasure]) throws -> Set<SubjectID> {
        guard !recorded.isEmpty else { return [] }
        let connection = try connection()
        let live = try connection.execute("SELECT subject FROM ledger_keys WHERE subject = ANY($1::text[]) AND NOT erased",
                                          [PostgresAccounts.textArray(Set(recorded.map(\.subject.text)).sorted())])
        let subjects = Set((0..<live.count).compactMap { live.string($0, 0).flatMap(SubjectID.init) })
        let asked = recorded.filter { subjects.contains($0.subject) }
        guard !asked.isEmpty else { return [] }
        let lines = try connection.execute("SELECT seq, line FROM ledger_events WHERE seq = ANY($1::bigint[])",
                                           ["{" + Set(asked.map { String($0.seq) }).sorted().joined(separator: ",") + "}"], binaryResults: true)
        var held = Set<SubjectID>()
        for row in 0..<lines.count {
            for erasure in asked where lines.bytes(row, 1, { ErasureLine.holds(erasure, line: $0) }) { held.insert(erasure.subject) }
        }
        return held
    }
}

// MARK: - Keys for an export

extension PostgresEventStore {
    /// Every subject of `ledger_keys` with its key (nil when erased), for `export --keys`.
    public func exportKeys() throws -> [(subject: SubjectID, key: [UInt8]?)] {
        let rows = try connection().execute("SELECT subject, erased, encode(key, 'hex') FROM ledger_keys ORDER BY subject")
        var out: [(subject: SubjectID, key: [UInt8]?)] = []
        for row in 0..<rows.count {
            guard let subject = rows.string(row, 0).flatMap(SubjectID.init) else { continue }
            switch PostgresKeyRing.entry(erased: rows.string(row, 1), hex: rows.string(row, 2)) {
            case .key(let key): out.append((subject, key))
            case .erased: out.append((subject, nil))
            default: continue
            }
        }
        return out
    }
}
