// MARK: - SessionRow

/// A session as the log tells it; `status` depends on the as-of time.
public struct SessionRow: Equatable, Sendable {
    /// Status at a given instant.
    public enum Status: String, Sendable, CaseIterable {
        /// Not ended and not expired.
        case active
        /// Ended by logout or account deletion.
        case ended
        /// `expiresAt` is not after the as-of time.
        case expired
    }

    /// The session id.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// Event time of `SessionStarted`.
    public var startedAt: Timestamp
    /// When it expires.
    public var expiresAt: Timestamp
    /// When it ended (nil until then).
    public var endedAt: Timestamp?

    /// The status at `asOf`.
    public func status(at asOf: Timestamp) -> Status { Self.status(endedAt: endedAt, expiresAt: expiresAt, at: asOf) }

    /// The status at `asOf` of a session that ended at `endedAt` (nil: not ended) and expires at `expiresAt`.
    public static func status(endedAt: Timestamp?, expiresAt: Timestamp, at asOf: Timestamp) -> Status {
        if endedAt != nil { return .ended }
        return expiresAt > asOf ? .active : .expired
    }
}

// MARK: - SessionView

/// The sessions view, compact, in start order. A session id started again (which ledger never
/// writes) takes the new times but stays in its first user's chain and keeps that user.
public struct SessionView: Equatable, Sendable {
    /// One session, compact. Sessions of one user are chained through `previousOfUser`.
    struct Record: Equatable, Sendable {
        var session: UUIDBits
        var uid: UUIDBits
        var startedAt: Timestamp
        var expiresAt: Timestamp
        var endedAt: Timestamp?
        /// The position of the same user's session started before this one, or -1.
        var previousOfUser: Int32 = -1

        var row: SessionRow {
            SessionRow(sessionId: session.uuidString, uid: uid.uuidString, startedAt: startedAt, expiresAt: expiresAt,
                       endedAt: endedAt)
        }
    }

    /// Sessions in start order.
    private(set) var records = ChunkedArray<Record>()
    /// Position in `records` by session id.
    private var index = PositionIndex()
    /// Each user's last session (the head of its `previousOfUser` chain), so deleting an account
    /// touches only its sessions. Keyed by the uid of the session it points at.
    private var lastOfUser = PositionIndex()

    /// An empty view.
    public init() {}

    // MARK: - Fold

    /// Applies one event. Deleting an account ends its sessions.
    public mutating func apply(_ event: ViewEvent) {
        switch event.fact {
        case .sessionStarted(let session, let uid, let expiresAt):
            upsert(Record(session: session, uid: uid, startedAt: event.at, expiresAt: expiresAt, endedAt: nil))
        case .sessionEnded(let session, _):
            if let at = position(of: session).map(Int.init), records[at].endedAt == nil { records[at].endedAt = event.at }
        case .accountDeleted(let uid, _, _):
            // Only this user's sessions: a scan of every session here would make replay quadratic.
            var at = lastSession(of: uid) ?? -1
            while at >= 0 {
                if records[Int(at)].endedAt == nil { records[Int(at)].endedAt = event.at }
                at = records[Int(at)].previousOfUser
            }
        default:
            break
        }
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Inserts `record` (chained to its user), or replaces the one with its id in place.
    mutating func upsert(_ record: Record) {
        // One probe of each index (a session id is new but for a line ledger never writes): the
        // id's slot is taken for the row about to be added, its user's last session exchanged.
        let at = Int32(records.count)
        var held: Int32?, previous: Int32 = -1
        do {
            // The rows are read through a copy that ends here, before they change (a copy alive
            // then would make the change copy them).
            let rows = records
            held = index.insertIfAbsent(record.session, at: at) { rows[Int($0)].session }
            if held == nil { previous = lastOfUser.exchange(record.uid, with: at) { rows[Int($0)].uid } ?? -1 }
        }
        if let held {
            // Same session id again: new values, same place in its user's chain (and the same user).
            let (previous, uid) = (records[Int(held)].previousOfUser, records[Int(held)].uid)
            records[Int(held)] = record
            records[Int(held)].previousOfUser = previous
            records[Int(held)].uid = uid
            return
        }
        var record = record
        record.previousOfUser = previous
        records.append(record)
    }

    /// Hints where `apply` of `fact` reads, at `stage` (see `LedgerViews.prefetch`).
    func prefetch(_ fact: borrowing ViewEvent.Fact, _ stage: PrefetchStage, _ hint: (UnsafeRawPointer) -> Void) {
        switch fact {
        case .sessionStarted(let session, let uid, _):
            hintRow(index.prefetch(session, stage, hint), hint)
            hintRow(lastOfUser.prefetch(uid, stage, hint), hint)
        case .sessionEnded(let session, _): hintRow(index.prefetch(session, stage, hint), hint)
        case .accountDeleted(let uid, _, _): hintRow(lastOfUser.prefetch(uid, stage, hint), hint)
        default: break
        }
    }

    /// Hints the record at `at`, when an index named one.
    private func hintRow(_ at: Int32?, _ hint: (UnsafeRawPointer) -> Void) {
        if let at { records.prefetch(Int(at), hint) }
    }

    /// The position of session `id`.
    private func position(of id: UUIDBits) -> Int32? { index.find(id) { records[Int($0)].session } }

    /// The position of the last session `uid` started.
    private func lastSession(of uid: UUIDBits) -> Int32? { lastOfUser.find(uid) { records[Int($0)].uid } }

    // MARK: - Reads

    /// Sessions in start order.
    public var rows: [SessionRow] { records.map(\.row) }

    /// Number of sessions.
    public var count: Int { records.count }

    /// Each session's status at `asOf`, in start order.
    public func statuses(at asOf: Timestamp) -> [SessionRow.Status] {
        records.map { SessionRow.status(endedAt: $0.endedAt, expiresAt: $0.expiresAt, at: asOf) }
    }

    /// The session with `sessionId`, if any.
    public func row(sessionId: String) -> SessionRow? {
        UUIDBits(uuid: sessionId).flatMap(position(of:)).map { records[Int($0)].row }
    }

    /// The sessions `uid` started, in start order (only that user's: no scan of every session).
    public func rows(uid: UUIDBits) -> [SessionRow] {
        var out: [SessionRow] = [], at = lastSession(of: uid) ?? -1
        while at >= 0 {
            out.append(records[Int(at)].row)
            at = records[Int(at)].previousOfUser
        }
        return out.reversed()
    }

    /// Users with at least one session.
    func hasSession(uid: UUIDBits) -> Bool { lastSession(of: uid) != nil }

    /// Calls `body` with each session's user and status at `asOf`, in start order, without spelling
    /// out rows (a check over every session holds no string per session).
    func forEachStatus(at asOf: Timestamp, _ body: (_ uid: UUIDBits, _ status: SessionRow.Status) -> Void) {
        for record in records { body(record.uid, SessionRow.status(endedAt: record.endedAt, expiresAt: record.expiresAt, at: asOf)) }
    }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for (at, record) in records.enumerated() {
            if let ended = record.endedAt, ended < record.startedAt { out.append("session \(record.session.uuidString) ended before it started") }
            if position(of: record.session) != Int32(at) { out.append("session \(record.session.uuidString) is not indexed") }
            if record.previousOfUser >= Int32(at) { out.append("session \(record.session.uuidString) chains forward") }
        }
        if index.count != records.count { out.append("index and sessions differ") }
        return out
    }
}
