import Glibc
import LedgerDomain
import Synchronization

// MARK: - ImportReport

/// What `importLog` did.
public struct ImportReport: Equatable, Sendable {
    /// Lines in the file.
    public var lines = 0
    /// Lines inserted (those after the store's head).
    public var inserted = 0
    /// The store's head afterwards.
    public var head = Head.empty
}

// MARK: - Import

extension PostgresEventStore {
    /// Loads the log file at `path`, preserving every `seq`, `id`, `at`, `prev` and `hash` (the
    /// verbatim lines are stored). The whole file is verified first; a damaged or torn file is refused.
    /// The store must be empty, or hold a prefix of the file (its head line is the file's line at the
    /// same seq): then only the lines after the head are added. The account-state tables are brought
    /// up to the new head in the same transaction. All or nothing, in one transaction.
    /// A log of data version 2 brings the keys of its subjects from the key store beside it
    /// (`events.keys`: live keys and erasures); a store that held no line takes the file's data
    /// version (1 for a log without a key store beside it).
    /// With `keyStorePath`, the keys come from that file (`export --keys`) instead of the one beside the log.
    public func importLog(path: String, keyStorePath keysPath: String? = nil) throws -> ImportReport {
        if let keysPath { KeyRing.use(keyStorePath: keysPath, forLog: path) }
        let verified = try LogVerifier.verify(path: path)
        if let problem = verified.problems.first {
            throw StoreError(.damaged, "\(path) does not verify (line \(problem.line): \(problem.kind.rawValue): \(problem.message)); nothing was imported",
                             problem: problem)
        }
        let connection = try connection()
        var report = ImportReport(lines: verified.events, inserted: 0, head: verified.head)
        do {
            try Self.requireLineGuards(connection)
            try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
                let (head, _) = try Self.head(connection)
                var positions: [String: Int] = [:]
                if head.seq > 0 {
                    guard head.seq <= verified.head.seq else {
                        throw StoreError(.conditionFailed, "the store already holds \(head.seq) events, more than the \(verified.events) of \(path); nothing was imported",
                                         reason: "store-not-empty")
                    }
                    let counts = try connection.execute("SELECT stream, max(stream_position), count(*) FROM ledger_events GROUP BY stream")
                    for row in 0..<counts.count {
                        let stream = counts.string(row, 0) ?? ""
                        guard counts.int(row, 1) == counts.int(row, 2) else {
                            throw StoreError(.damaged, "the rows of stream \(stream) in \(PostgresSchema.eventsTable) are not numbered 1, 2, …: "
                                             + "nothing was imported; `ledger verify --store URL` names the row")
                        }
                        positions[stream] = counts.int(row, 1) ?? 0
                    }
                }
                let keyStorePath = keysPath ?? FileSystem.join(FileSystem.directoryName(path), KeyStore.fileName)
                let sealed = FileSystem.exists(keyStorePath)
                if head.seq == 0 { try Self.setDataVersion(sealed || verified.events == 0 ? 2 : 1, connection) }
                let file = try FileDescriptor(path: path, flags: O_RDONLY)
                let subjects = SubjectsNamed()
                var checker = ChainChecker(opener: subjects)
                var rows: [[String?]] = []
                var failure: (any Error)?
                // The subjects the file's log erased: a key store beside it taken before the erasure
                // still holds their keys, which are not carried over.
                var erased: Set<SubjectID> = []
                try LogScanner.scanLines(file, checker: &checker) { item, line in
                    guard case .event(let event, _, _) = item else { return false }
                    if let subject = event.event.erasedSubject { erased.insert(subject) }
                    if event.seq == head.seq && event.envelope.hash != head.hash {
                        failure = StoreError(.conditionFailed, "the store's head (seq \(head.seq)) is not line \(head.seq) of \(path): the file does not continue this store; nothing was imported",
                                             reason: "store-not-empty")
                        return false
                    }
                    guard event.seq > head.seq else { return true }
                    let position = positions[event.stream, default: 0] + 1
                    positions[event.stream] = position
                    rows.append(Self.row(event.envelope, streamPosition: position, line: String(decoding: line, as: UTF8.self)))
                    if rows.count == 500 {
                        do { try Self.insert(rows, connection) } catch { failure = error; return false }
                        report.inserted += rows.count
                        rows.removeAll(keepingCapacity: true)
                    }
                    return true
                }
                if let failure { throw failure }
                try Self.insert(rows, connection)
                report.inserted += rows.count
                let keys = PostgresAppendKeys(connection: connection, preloaded: nil)
                if sealed, !subjects.named.isEmpty {
                    let store = try KeyStore(path: keyStorePath, writable: false)
                    for subject in subjects.named.sorted(by: { $0.text < $1.text }) {
                        switch try store.state(of: subject) {
                        case .live where erased.contains(subject): keys.adopt(subject, key: nil)
                        case .live: keys.adopt(subject, key: try store.key(for: subject))
                        case .erased: keys.adopt(subject, key: nil)
                        case .absent: continue  // lost with the file's key store: `verify` reports missing-key
                        }
                    }
                    for statement in keys.insertStatements { try connection.execute(statement.sql, statement.parameters) }
                }
                // The file's erasures do here what an erasure does: the keys (a prefix imported before
                // may have made them live), the pending checks of the emails, the views checkpoint.
                if !erased.isEmpty {
                    for statement in Self.erasureStatements(erased) { try connection.execute(statement.sql, statement.parameters) }
                }
                try Self.bringAccountsUpToDate(connection, opener: keys.opener(erasing: erased, ring: keyRing))
                try connection.execute("SELECT pg_notify($1, $2)", [PostgresSchema.channel, String(verified.head.seq)])
            }
        } catch let error as StoreError {
            throw error
        } catch let error as KeyStoreError {
            throw StoreError(.io, "the key store beside \(path) cannot be read: \(error.message); nothing was imported")
        } catch let error as SystemError {
            throw StoreError.io(error)
        } catch {
            throw storeError(error, during: "the import")
        }
        return report
    }
}

/// The opener of an import's scan: notes every subject a line's personal members name, opens none.
private final class SubjectsNamed: PersonalDataOpener {
    private let subjects = Mutex<Set<SubjectID>>([])

    /// Notes the member's subject; `.erased`.
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        subjects.withLock { _ = $0.insert(member.subject) }
        return .erased
    }

    /// The subjects noted.
    var named: Set<SubjectID> { subjects.withLock { $0 } }
}
