import LedgerDomain
import Synchronization

// MARK: - Ledger

/// An open ledger: the front door a Swift server embeds (`Docs/Library.md`). Any number of tasks
/// may call one `Ledger` at once; the rules hold between them as they do between processes (one
/// live account per email, the lockout, no event lost or reordered), and appends made at once share
/// writes and syncs (group commit). Calls run off the cooperative thread pool, on threads of the
/// ledger's own (`CallThreads`: up to 64 at once on the file store, `Configuration.connections` on
/// PostgreSQL), since they wait for locks and `fdatasync`.
///
/// A call that started runs to its end: a task cancelled meanwhile still gets its result (its
/// batch may already be durable). After a failed `fdatasync` every later write is refused with
/// `LedgerError.Code.notDurable` until the ledger is opened again (run `ledger recover` first).
public final class Ledger: Sendable {
    /// Where the ledger is and how it hashes passwords.
    public struct Configuration: Sendable {
        /// The data directory: the log and its caches on the file store, the profile images on both.
        public var directory: String
        /// The yescrypt cost of new password hashes (0: the library's default).
        public var hashCost: UInt
        /// Where the log is: the file under `directory`, or a PostgreSQL database (`ledger --store`).
        public var store: Store
        /// On PostgreSQL, how many calls run at once, each on connections of its own (up to three:
        /// its reads', its registration lock's, its sign-in lock's); more calls wait in line, holding
        /// no thread, for one to end. The group commit has one more. Unused on the file store (64
        /// calls run at once there).
        public var connections: Int
        /// Receives the one-line notices a file store writes as it repairs (a torn tail moved aside);
        /// ignored by default. The command line writes them to standard error.
        public var notice: @Sendable (String) -> Void = { _ in }
        /// Drills only: the failpoints that fail, cut or crash writes (the command line's
        /// `LEDGER_FAILPOINTS`); none by default.
        public var failpoints = Failpoints()
        /// Drills only: called before a failpoint ends the process (the command line flushes its output).
        public var beforeCrash: @Sendable () -> Void = {}
        /// Runs each call on the thread of the task that makes it, not on a thread of the ledger's
        /// own: only for a caller whose task has a thread to itself (the command line runs its one
        /// task on the main thread), where a hand-off would cost more than a small call's work. Never
        /// for tasks of Swift's cooperative pool: a call holds its thread while it waits.
        package var callsOnCallersThread = false

        /// A configuration for the data directory `directory`, its log in `store`.
        public init(directory: String, hashCost: UInt = 0, store: Store = .file, connections: Int = 16) {
            self.directory = directory; self.hashCost = hashCost; self.store = store; self.connections = connections
        }
    }

    /// Where the log is, as the command line's `--store` / `LEDGER_STORE` names it.
    public enum Store: Sendable, Equatable {
        /// `DIRECTORY/events.jsonl`.
        case file
        /// The PostgreSQL database at the URL, its tables made by `ledger init --store URL`.
        case postgres(PostgresURL)
    }

    /// The configuration it was opened with.
    public let configuration: Configuration
    let stores: LedgerStores
    private let threads: CallThreads
    private let calls = Mutex(Calls())

    /// The calls running, and whether new ones are refused.
    private struct Calls {
        var running = 0
        var closed = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private init(configuration: Configuration) {
        self.configuration = configuration
        stores = LedgerStores(configuration)
        threads = CallThreads(limit: stores.callsAtOnce)
    }

    /// Opens the ledger of `configuration`: on PostgreSQL, checks that the database answers with its
    /// tables; on the file store reads nothing (each call checks the log as far as it reads it, as
    /// each `ledger` command does, so a writer that needs only the log's tail reads only that).
    public static func open(_ configuration: Configuration) async throws(LedgerError) -> Ledger {
        let ledger = Ledger(configuration: configuration)
        if case .postgres = configuration.store { _ = try await ledger.head() }
        return ledger
    }

    /// Opens the ledger in the data directory `directory`.
    public static func open(directory: String) async throws(LedgerError) -> Ledger {
        try await open(Configuration(directory: directory))
    }

    /// Refuses new calls (`LedgerError.Code.closed`) and returns once every call that started has
    /// ended, its batch durable or refused.
    public func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = calls.withLock { calls -> Bool in
                calls.closed = true
                if calls.running == 0 { return true }
                calls.drained.append(done)
                return false
            }
            if now { done.resume() }
        }
        stores.closeIdle()
        await threads.retire()  // no thread of the ledger outlives it, nor frees what a call held later
    }

    /// How many threads of its own the ledger has started that have not ended (for tests).
    var callThreadCount: Int { threads.threadCount }

    /// Runs `work` on one of the ledger's threads, with a store whose appends go through the
    /// ledger's group commit and the locks that go with it (`LedgerStores`); refused once the
    /// ledger is closed.
    func perform<T: Sendable>(_ work: @escaping @Sendable (LedgerStores.Call) throws -> T) async throws(LedgerError) -> T {
        let admitted = calls.withLock { calls -> Bool in
            guard !calls.closed else { return false }
            calls.running += 1
            return true
        }
        guard admitted else { throw LedgerError(.closed, "the ledger is closed") }
        let stores = stores
        let call = { @Sendable in
            Result { () throws(LedgerError) -> T in
                do { return try stores.withCall(work) } catch { throw LedgerError(error) }
            }
        }
        let result: Result<T, LedgerError>
        if configuration.callsOnCallersThread {
            result = call()
        } else {
            result = await withCheckedContinuation { continuation in
                threads.run { continuation.resume(returning: call()) }
            }
        }
        let drained = calls.withLock { calls -> [CheckedContinuation<Void, Never>] in
            calls.running -= 1
            guard calls.closed, calls.running == 0 else { return [] }
            defer { calls.drained = [] }
            return calls.drained
        }
        for waiter in drained { waiter.resume() }
        return try result.get()
    }
}
