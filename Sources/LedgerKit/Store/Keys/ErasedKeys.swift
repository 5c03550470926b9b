import Glibc
import LedgerDomain

// MARK: - ErasedKeys

/// `verify`'s check that the key store forgot what the log erased: a live key of a subject that an
/// erasure event names (`erased-key-present`, on that event's line) opens the erased person's data
/// again. It is a key store restored from a backup taken before the erasure, or an erasure cut
/// short between its event and its key's destruction (its marker, `erasure.pending`, still there).
/// `verify` only reads: the next writer, read or `ledger recover` destroys such a key.
enum ErasedKeys {
    /// The problems of the key store at `keyStore` (the folder's `events.keys`, or the one
    /// `verify --keys` names) of the log at `logPath`, given the line of the first erasure event of
    /// each subject the log erases. An erasure under way (its marker, `erasure.pending`, naming the
    /// subject) is waited for as `CacheCheck` waits (`pause`), since it destroys its keys just after
    /// its event; `markerStays` is true when such a marker was still there after the waits.
    /// `betweenLooks` runs after each look at the marker, before the keys are read (tests finish
    /// an erasure there).
    static func problems(logPath: String, keyStore path: String, erasedOn lines: [SubjectID: Int],
                         pause: (_ attempt: Int) -> Void = CacheCheck.pause,
                         betweenLooks: () -> Void = {}) -> (problems: [LogProblem], markerStays: Bool) {
        guard !lines.isEmpty, FileSystem.exists(path) else { return ([], false) }
        var attempt = 0
        while true {
            attempt += 1
            // The marker first: an erasure removes it only once its keys are destroyed, so a key
            // still live after a look that found no marker naming it is no erasure's under way
            // (looked at the other way round, an erasure that finished in between would read as a
            // restored key).
            let marked = markedSubjects(logPath: logPath) ?? []
            betweenLooks()
            // A key store that cannot be opened holds no key that opens anything: reads refuse it,
            // and `missing-key` names the subjects it fails.
            guard let keys = try? KeyStore(path: path, writable: false) else { return ([], false) }
            let live = lines.keys.filter { (try? keys.state(of: $0)) == .live }
            if live.isEmpty { return ([], false) }
            let underWay = Set(live).intersection(marked)
            if !underWay.isEmpty, attempt < CacheCheck.attempts {
                pause(attempt + 1)
                continue
            }
            return (problems(live, lines: lines, store: path, cutShort: underWay), !underWay.isEmpty)
        }
    }

    /// The subjects the erasure marker beside the log names (one id per line): none when there is
    /// no marker; nil when it is not a regular file one can read whole (a FIFO is never waited on).
    static func markedSubjects(logPath: String) -> Set<SubjectID>? {
        let path = FileSystem.join(FileSystem.directoryName(logPath), FileEventStore.erasureMarkerName)
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? [] : nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= markerLimit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n == bytes.count else { return nil }
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { SubjectID(String($0)) })
    }

    /// The largest erasure marker read: about 45 bytes a subject, so 1.4 million subjects in one
    /// erasure (`erase --expired` of a large log names one a day's addresses each).
    static let markerLimit = 64 << 20

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
        return problems(live, lines: lines, store: PostgresSchema.keysTable, cutShort: [])
    }

    /// One `erased-key-present` per subject of `live`, on the line of its erasure, in line order;
    /// those of `cutShort` named by an erasure marker that stayed.
    private static func problems(_ live: [SubjectID], lines: [SubjectID: Int], store: String, cutShort: Set<SubjectID>) -> [LogProblem] {
        live.map { subject in
            let remedy = cutShort.contains(subject)
                ? "an erasure was cut short (erasure.pending): the next writer, or `ledger recover`, destroys it"
                : "restored from a backup taken before the erasure? the next writer, read or `ledger recover` destroys it"
            return LogProblem(line: lines[subject]!, kind: .erasedKeyPresent,
                              message: "\(store) still holds a live key of \(subject), which the erasure event on this line erased: its personal data can be read again (\(remedy))")
        }.sorted { ($0.line, $0.message) < ($1.line, $1.message) }
    }
}
