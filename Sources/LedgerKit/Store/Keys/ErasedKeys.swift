import LedgerDomain

// MARK: - ErasedKeys

/// `verify`'s check that the key store forgot what the log erased: a live key of a subject that an
/// erasure event names (`erased-key-present`, on that event's line) opens the erased person's data
/// again. It is a key store restored from a backup taken before the erasure, or an erasure cut
/// short between its event and its key's destruction (its marker, `erasure.pending`, still there).
/// `verify` only reads: the next writer, read or `ledger recover` destroys such a key.
enum ErasedKeys {
    /// The problems of the key store beside the log at `logPath`, given the line of the first
    /// erasure event of each subject the log erases. An erasure under way (its marker there) is
    /// waited for as `CacheCheck` waits (`pause`), since it destroys its keys just after its event.
    static func problems(logPath: String, erasedOn lines: [SubjectID: Int],
                         pause: (_ attempt: Int) -> Void = CacheCheck.pause) -> [LogProblem] {
        guard !lines.isEmpty else { return [] }
        let path = FileSystem.join(FileSystem.directoryName(logPath), KeyStore.fileName)
        guard FileSystem.exists(path) else { return [] }
        var attempt = 0
        while true {
            attempt += 1
            let erasing = WritersLockShared.erasureUnderWay(logPath: logPath)
            // A key store that cannot be opened holds no key that opens anything: reads refuse it,
            // and `missing-key` names the subjects it fails.
            guard let keys = try? KeyStore(path: path, writable: false) else { return [] }
            let live = lines.keys.filter { (try? keys.state(of: $0)) == .live }
            if live.isEmpty { return [] }
            if erasing, attempt < CacheCheck.attempts {
                pause(attempt + 1)
                continue
            }
            return problems(live, lines: lines, store: path, cutShort: erasing)
        }
    }

    /// The problems of a PostgreSQL store's `ledger_keys`: rows with a key of a subject the log
    /// erases (an erasure deletes the key in the transaction of its event, so only a restored row
    /// holds one).
    static func problems(store: PostgresEventStore, erasedOn lines: [SubjectID: Int]) throws -> [LogProblem] {
        guard !lines.isEmpty else { return [] }
        let live: [SubjectID]
        do {
            let connection = try store.connection()
            let rows = try connection.execute("SELECT subject FROM \(PostgresSchema.keysTable) WHERE NOT erased AND subject = ANY($1::text[])",
                                              [PostgresAccounts.textArray(lines.keys.map(\.text).sorted())])
            live = (0..<rows.count).compactMap { rows.string($0, 0).flatMap(SubjectID.init) }.filter { lines[$0] != nil }
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return []  // a store from before data version 2: no keys at all
        } catch {
            throw store.storeError(error, during: "reading \(PostgresSchema.keysTable)")
        }
        return problems(live, lines: lines, store: PostgresSchema.keysTable, cutShort: false)
    }

    /// One `erased-key-present` per subject of `live`, on the line of its erasure, in line order.
    private static func problems(_ live: [SubjectID], lines: [SubjectID: Int], store: String, cutShort: Bool) -> [LogProblem] {
        let remedy = cutShort
            ? "an erasure was cut short (erasure.pending): the next writer, or `ledger recover`, destroys it"
            : "restored from a backup taken before the erasure? the next writer, read or `ledger recover` destroys it"
        return live.map { subject in
            LogProblem(line: lines[subject]!, kind: .erasedKeyPresent,
                       message: "\(store) still holds a live key of \(subject), which the erasure event on this line erased: its personal data can be read again (\(remedy))")
        }.sorted { ($0.line, $0.message) < ($1.line, $1.message) }
    }
}
