import LedgerDomain

// MARK: - PostgresLogFollower

/// `LogFollower` for a PostgreSQL store: each `read` verifies and delivers the lines appended since the
/// last one, continuing the same chain check; `waitForAppends` sleeps on `LISTEN` until an append
/// transaction's `NOTIFY` arrives (or a timeout), so following costs no polling queries.
public final class PostgresLogFollower {
    /// The store being followed.
    public let store: PostgresEventStore
    private var listener: PostgresConnection?
    private var checker: ChainChecker
    private var next = 1
    private var damage: LogProblem?

    /// A reader of `store` from its first line, its personal members opened with the store's keys.
    public init(store: PostgresEventStore) {
        self.store = store
        checker = ChainChecker(opener: store.keyRing)
    }

    /// Starts listening (before the first read, so no append between the read and the wait is missed).
    public func listen() throws {
        do {
            let connection = try PostgresConnection(store.url)
            try connection.listen(PostgresSchema.channel)
            listener = connection
        } catch let error as PostgresError {
            throw StoreError(.unavailable, error.message)
        }
    }

    /// Delivers each event appended since the last call with its line (no newline), until `body` returns false.
    public func read(_ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> LogFollower.Outcome {
        if let damage { return .damaged(damage) }
        // A host upgraded while this one follows may migrate the store: the check every new
        // connection makes (`PostgresConnection.forStore`), again before each read.
        do {
            try PostgresEventStore.refuseNewerStore(try store.connection())
        } catch {
            throw store.storeError(error, during: "reading the store's versions")
        }
        var outcome = LogFollower.Outcome.caughtUp(tornTail: nil)
        try store.forEachLine(from: next) { seq, line in
            switch LogScanner.decode(line, offset: 0, terminated: true, checker: &checker) {
            case .event(let event, _, _):
                next = seq + 1
                if body(event, line) { return true }
                outcome = .stopped
                return false
            case .problem(let problem, _, _), .tornTail(let problem, _, _):
                damage = problem
                outcome = .damaged(problem)
                return false
            }
        }
        return outcome
    }

    /// Waits up to `milliseconds` for an append's notification; true when one arrived.
    public func waitForAppends(milliseconds: Int32) throws -> Bool {
        guard let listener else { try listen(); return true }
        do {
            return try !listener.waitForNotifications(milliseconds: milliseconds).isEmpty
        } catch let error as PostgresError {
            self.listener = nil
            throw StoreError(.unavailable, error.message)
        }
    }
}
