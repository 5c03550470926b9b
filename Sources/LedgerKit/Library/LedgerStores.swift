import Dispatch
import LedgerDomain
import Synchronization

// MARK: - LedgerStores

/// Where the calls of one `Ledger` get their store and locks, and the group committer their appends
/// share. On the file store each call makes its own (cheap: a file store, lock files), since `flock`
/// on descriptors of their own excludes calls of one process as it excludes processes. On
/// PostgreSQL each call takes a `Connections` of its own from a pool of at most
/// `Configuration.connections`, waiting when all are in use: its session advisory locks (sign-in
/// per email, registration) are held on connections no other running call uses, so they exclude
/// the calls of this process from one another as they exclude other processes (a session lock is
/// re-entrant on its own connection, so two calls sharing one would not exclude each other).
final class LedgerStores: Sendable {
    /// The appends of every call go through it (its store has a connection of its own on PostgreSQL).
    let committer: GroupCommitter
    private let configuration: Ledger.Configuration
    private let idle = Mutex<[Connections]>([])
    private let free: DispatchSemaphore

    /// The connections one call uses on PostgreSQL, each opened on first use and kept for the next
    /// call: the store's (reads; appends go through the committer), the registration locks' and
    /// the sign-in locks'.
    final class Connections: @unchecked Sendable {
        // @unchecked: a `Connections` is used by one call at a time: `LedgerStores.take` hands it
        // to one call (under `idle`'s lock), which gives it back with `put` once it has ended.
        let store: PostgresEventStore
        let registrationLocks: PostgresRegistrationLocks
        let signInLocks: PostgresSignInLocks

        init(url: PostgresURL, committer: GroupCommitter) {
            store = PostgresEventStore(url: url)
            store.groupCommitter = committer
            registrationLocks = PostgresRegistrationLocks(url: url)
            signInLocks = PostgresSignInLocks(url: url)
        }
    }

    /// What one call works with.
    struct Call {
        /// The store, whose appends go through the committer.
        let store: any LedgerStore
        /// The registration locks that go with it.
        let registrationLocks: any RegistrationLocks
        /// The sign-in locks that go with it.
        let signInLocks: any SignInLocks
        /// The log the reads fold: nil for a file store without a log yet.
        let log: LogSource?
    }

    /// How many calls run at once (`CallThreads.limit`): on PostgreSQL as many as there are
    /// `Connections` in the pool, on the file store `fileCallsAtOnce`.
    var callsAtOnce: Int {
        switch configuration.store {
        case .file: Self.fileCallsAtOnce
        case .postgres: max(1, configuration.connections)
        }
    }

    /// How many calls run at once on the file store: each waits for its locks and its group's
    /// `fdatasync` on a thread of its own, and as many batches as wait meanwhile share the next group.
    static let fileCallsAtOnce = 64

    /// The stores of `configuration`.
    init(_ configuration: Ledger.Configuration) {
        self.configuration = configuration
        switch configuration.store {
        case .file:
            let store = FileEventStore(directory: configuration.directory)
            store.notice = configuration.notice
            committer = GroupCommitter(store: store)
        case .postgres(let url): committer = GroupCommitter(store: PostgresEventStore(url: url))
        }
        free = DispatchSemaphore(value: max(1, configuration.connections))
    }

    /// Runs `work` with what one call works with; on PostgreSQL, waits (blocking this thread, one of
    /// the ledger's) for a free `Connections`, which it finds at once when it runs on `CallThreads`
    /// of `callsAtOnce`.
    func withCall<T>(_ work: (Call) throws -> T) throws -> T {
        switch configuration.store {
        case .file:
            let store = FileEventStore(directory: configuration.directory)
            store.groupCommitter = committer
            store.notice = configuration.notice
            return try work(Call(store: store, registrationLocks: FileRegistrationLocks(directory: configuration.directory),
                                 signInLocks: FileSignInLocks(directory: configuration.directory),
                                 log: FileSystem.exists(store.logPath) ? .file(store.logPath) : nil))
        case .postgres(let url):
            free.wait()
            defer { free.signal() }
            let connections = idle.withLock { $0.popLast() } ?? Connections(url: url, committer: committer)
            defer { idle.withLock { $0.append(connections) } }
            return try work(Call(store: connections.store, registrationLocks: connections.registrationLocks,
                                 signInLocks: connections.signInLocks, log: .postgres(connections.store)))
        }
    }

    /// Closes the idle connections (called once no call runs).
    func closeIdle() { idle.withLock { $0.removeAll() } }
}
