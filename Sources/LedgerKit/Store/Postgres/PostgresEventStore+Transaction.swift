import LedgerDomain

// MARK: - PostgresEventStore: one append transaction

/// One append transaction, of one batch (a lone `append`) or of several (`appendGroup`): `BEGIN` and
/// the append lock, the reads of every batch at once (`readForAppend`), then each batch in turn is
/// checked (its parts' versions and its condition, against the log and account state as the batches
/// before it in the transaction left them, which is what it would meet appended alone after them);
/// a refused batch is left out with its refusal, the others' lines are chained one after another,
/// and all of them, their keys and the account state go in one pipeline, then `COMMIT`. Success is
/// reported only after `COMMIT` returned.
extension PostgresEventStore {
    /// One batch of an append transaction.
    struct TransactionBatch {
        /// Its parts.
        let parts: [StreamAppend]
        /// Their events as a reader decodes them, in order.
        let decoded: [LedgerEvent]
        /// What it needs besides its parts' versions.
        let condition: AppendCondition?
    }

    /// Runs one append transaction; each batch's recorded events or its refusal (a wrong expected
    /// version, a failed condition). Throws what failed the transaction as a whole (rolled back on
    /// the server: nothing of it stored, except `notDurable`, a `COMMIT` whose answer was lost).
    func appendOnce(_ batches: [TransactionBatch]) throws -> [Result<[RecordedEvent], any Error>] {
        let parts = batches.flatMap(\.parts), decoded = batches.flatMap(\.decoded)
        precondition(batches.count == 1 || decoded.allSatisfy { $0.erasedSubject == nil }, "an erasure is appended alone")
        var connection = try connection()
        var outcomes = [Result<[RecordedEvent], any Error>?](repeating: nil, count: batches.count)
        var written: [(batch: Int, events: [(envelope: Envelope, event: LedgerEvent)])] = []
        do {
            var ids = newIDs(decoded.count)
            var accounts = PostgresAccounts(connection: connection)
            var reads: AppendReads
            do {
                reads = try Self.readForAppend(connection, parts, decoded, ids: ids, rowsOf: accounts, checkingGuards: validGuards == nil)
            } catch let error as PostgresError where error.connectionLost {
                // A connection the server dropped while idle (restart, idle timeout) is only found out
                // by using it; these reads wrote nothing, so connecting again and retrying once is safe.
                open = nil
                connection = try self.connection()
                accounts = PostgresAccounts(connection: connection)
                reads = try Self.readForAppend(connection, parts, decoded, ids: ids, rowsOf: accounts, checkingGuards: validGuards == nil)
            }
            guard let store = reads.store else { throw SchemaBehind.dataVersionTables }
            // The columns decided on below are the lines' only under validated guards (`PostgresSchema+LineGuard`).
            if store.schema < 4 { throw SchemaBehind.lineGuard }
            switch try lineGuardState(store, connection) {
            case .valid: break
            case .added: throw SchemaBehind.lineGuard
            case .absent: throw Self.unguarded
            case .hooked: throw Self.hooked
            }
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
            if reads.idsTaken { ids = try freshIDs(decoded.count, connection) }
            var chain = head, usedIDs = 0, firstPart = 0
            var at = max(clock.now(), lastAt ?? Timestamp(millis: 0))
            var rows: [[String?]] = []
            for (k, batch) in batches.enumerated() {
                let versions = Array(reads.versions[firstPart..<firstPart + batch.parts.count])
                firstPart += batch.parts.count
                do {
                    try check(batch, versions: versions, head: head, accounts: accounts, connection)
                } catch let refusal as StoreError where refusal.code == .wrongExpectedVersion || refusal.code == .conditionFailed {
                    outcomes[k] = .failure(refusal)
                    continue
                }
                var pending: [(envelope: Envelope, event: LedgerEvent)] = []
                // The lines a file store would write for the batch, `batch` marks included: one transaction
                // is all or nothing already, but the lines stay the same bytes in either store.
                let marks = BatchMark.marks(count: batch.decoded.count)
                for (part, version) in zip(batch.parts, versions) {
                    for (position, event) in part.events.enumerated() {
                        let type = event.type, id = ids[usedIDs]
                        usedIDs += 1
                        let mark = marks[pending.count].isUnmarked ? nil : marks[pending.count]
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
                                                  stream: part.stream, batch: mark, data: data, prev: chain.hash)
                        let hash = SHA256.hex(body)
                        let envelope = Envelope(seq: chain.seq + 1, id: id, at: at, type: type.rawValue, v: v,
                                                stream: part.stream, batch: mark, data: data, prev: chain.hash, hash: hash)
                        var line = LineCodec.line(body: body, hash: hash)
                        line.removeLast()  // the newline is the file's separator, not part of the stored line
                        rows.append(Self.row(envelope, streamPosition: version + position + 1, line: String(decoding: line, as: UTF8.self)))
                        pending.append((envelope, batch.decoded[pending.count]))
                        chain = Head(seq: chain.seq + 1, hash: hash)
                        at = max(at, clock.now())
                    }
                }
                // The next batch is checked and sealed against the account state this one leads to.
                if decoded.allSatisfy({ $0.erasedSubject == nil }) {
                    try accounts.apply(pending.map { ViewEvent(RecordedEvent(envelope: $0.envelope, event: $0.event)) })
                }
                written.append((k, pending))
            }
            guard !written.isEmpty else {
                _ = try? connection.execute("ROLLBACK")
                return outcomes.map { $0! }
            }
            let erasing = Set(decoded.compactMap(\.erasedSubject))
            if erasing.isEmpty {
                // The lines, their new keys, the account state they lead to and NOTIFY in one round
                // trip; COMMIT is sent only once they all succeeded, so a failure before it leaves nothing stored.
                let inserts = Self.insertStatements(rows)
                try Self.requireStored(rows.count, by: try connection.pipeline(inserts + keys.insertStatements
                                        + accounts.flushStatements(through: chain, notify: String(chain.seq))).prefix(inserts.count))
            } else {
                // An erasure: its subjects' keys and every cache that may hold their data go in the
                // same transaction as its lines (`+Erasure`).
                let inserts = Self.insertStatements(rows)
                try Self.requireStored(rows.count, by: try connection.pipeline(inserts + keys.insertStatements + Self.erasureStatements(erasing))
                                        .prefix(inserts.count))
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
            if Self.isOldPasswordSeqColumn(error) { throw SchemaBehind.oldPasswordSeqColumn }
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
        for (k, events) in written {
            let recorded = events.map { RecordedEvent(envelope: $0.envelope, event: $0.event) }
            recorded.forEach { batches[k].condition?.folded?.observe($0) }
            outcomes[k] = .success(recorded)
        }
        return outcomes.map { $0! }
    }

    /// Checks one batch under the append lock: its folded condition fed up to `head`, then each
    /// part's expected version and the condition, asked of `accounts`.
    private func check(_ batch: TransactionBatch, versions: [Int], head: Head, accounts: PostgresAccounts,
                       _ connection: PostgresConnection) throws {
        if let folded = batch.condition?.folded, folded.position < head.seq {
            try Self.forEachEvent(connection, from: folded.position + 1, through: head.seq, opener: keyRing) { folded.observe($0); return true }
        }
        for (part, version) in zip(batch.parts, versions) {
            guard part.expected.accepts(version) else {
                throw StoreError.wrongVersion(stream: part.stream, expected: part.expected, actual: version)
            }
            try batch.condition?.check(part) { email in
                let live = accounts.holdsLiveAccount(email: email)
                try accounts.check()
                return live
            }
        }
    }
}
