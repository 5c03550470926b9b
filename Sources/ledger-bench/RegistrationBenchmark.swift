import Glibc
import LedgerDomain
import LedgerKit
import Synchronization

// MARK: - RegistrationBenchmark

/// Whole registrations per second, in-process: `RegistrationCoordinator.register` without an image
/// (yescrypt cost 1), each one AccountCreated, ProfileWritten and SessionStarted appended durably.
/// This is the "single-registration commit" as the product performs it today. With
/// `--processes N`, N processes register into one store at once (`RegistrationProcesses`).
enum RegistrationBenchmark {
    /// `ledger-bench registrations --count K --dir DIR [--runs R] [--store URL] [--processes N]
    /// [--tasks N] [--json]`: one line per run and the median, or (`--json`) one object with the
    /// median `commitsPerSecond` (completed registrations) and `syncsPerSecond` (groups written: the
    /// log's `fdatasync`s, or PostgreSQL's transactions). With `--tasks N` (either store), N threads
    /// of one process register K each, their appends through one group committer.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["count", "dir", "runs", "store", "processes", "child", "tasks", "json"])
        guard let directory = options.string("dir") else { throw BenchError.usage("registrations needs --dir DIR") }
        let count = try options.positiveInt("count", default: 200)
        if options.string("child") != nil {
            return try RegistrationProcesses.child(try options.positiveInt("child", default: 1), count: count, directory: directory,
                                                   store: options.string("store"))
        }
        let processes = try options.positiveInt("processes", default: 1)
        let tasks = try options.positiveInt("tasks", default: 1), json = options.flag("json")
        guard tasks == 1 || processes == 1 else {
            throw BenchError.usage("--tasks above 1 measures one process's group commit; leave out --processes")
        }
        var rates: [Double] = [], syncRates: [Double] = []
        for run in 1...(try options.positiveInt("runs", default: 1)) {
            let folder = FileSystem.join(directory, "registrations-\(run)")
            var syncs: Int?
            let seconds: Double
            if tasks > 1 {
                (seconds, syncs) = try measure(tasks: tasks, count: count, directory: folder, store: options.string("store"))
            } else if processes == 1 {
                seconds = try measure(count: count, directory: folder, store: options.string("store"))
            } else {
                seconds = try RegistrationProcesses.measure(processes: processes, count: count, folder: folder, store: options.string("store"))
            }
            let total = count * processes * tasks
            rates.append(Double(total) / seconds)
            if let syncs { syncRates.append(Double(syncs) / seconds) }
            if !json {
                print("run \(run): \(total) registrations (\(processes) process\(processes == 1 ? "" : "es")\(tasks == 1 ? "" : ", \(tasks) tasks")) in "
                      + "\(Format.seconds(seconds)): \(Format.fixed(Double(total) / seconds, 1)) registrations/s")
            }
        }
        if json {
            let syncs = syncRates.isEmpty ? "null" : Format.fixed(Stopwatch.median(syncRates), 1)
            print("{\"tasks\":\(tasks),\"processes\":\(processes),\"count\":\(count),\"commitsPerSecond\":\(Format.fixed(Stopwatch.median(rates), 1)),"
                  + "\"syncsPerSecond\":\(syncs)}")
        } else {
            print("median \(Format.fixed(Stopwatch.median(rates), 1)) registrations/s")
        }
        return 0
    }

    /// Times `tasks` threads registering `count` each into a fresh data folder (or the database at
    /// `url`, emptied), every thread with a coordinator, store and locks of its own (its own
    /// connections on PostgreSQL) whose appends go through one `GroupCommitter`. Returns seconds
    /// and the groups written (syncs of the log, or transactions).
    static func measure(tasks: Int, count: Int, directory: String, store url: String?) throws -> (seconds: Double, syncs: Int) {
        _ = try prepare(directory: directory, store: url)
        let committer = try BenchStore.committer(directory: directory, url: url)
        let failures = Mutex<[String]>([])
        let seconds = Stopwatch.time {
            OwnThreads.run(tasks) { task in
                do {
                    let store = try BenchStore.grouped(directory: directory, url: url, committer: committer)
                    let coordinator = try coordinator(store: store, directory: directory, url: url)
                    for n in 1...count { try register(coordinator, "\(task).\(n)") }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw BenchError.failed(failure) }
        return (seconds, committer.groupsWritten)
    }

    /// Times `count` registrations into a fresh data folder `directory` (after one untimed one). Returns seconds.
    static func measure(count: Int, directory: String, store url: String? = nil) throws -> Double {
        let coordinator = try prepare(directory: directory, store: url)
        return try Stopwatch.time { for n in 1...count { try register(coordinator, "\(n)") } }
    }

    /// A fresh store in `directory` (or at `url`, emptied) holding one registration, and a coordinator over it.
    static func prepare(directory: String, store url: String?) throws -> RegistrationCoordinator {
        guard !FileSystem.exists(FileSystem.join(directory, "events.jsonl")) else {
            throw BenchError.usage("\(directory) already holds a log; give a fresh folder")
        }
        try FileSystem.makeDirectories(directory)
        let coordinator = try coordinator(store: try BenchStore.fresh(directory: directory, url: url), directory: directory, url: url)
        try register(coordinator, "0")
        return coordinator
    }

    /// A coordinator registering into `store` (the data folder `directory`, or the database at `url`).
    static func coordinator(store: any LedgerStore, directory: String, url: String?) throws -> RegistrationCoordinator {
        RegistrationCoordinator(store: store, blobs: FileBlobStore(directory: directory), directory: directory,
                                clock: SystemClock(), random: SecureRandom(), hasher: PasswordHasher(cost: 1),
                                failpoints: Failpoints(), locks: BenchStore.locks(directory: directory, url: url))
    }

    /// Registers `registrant.<tag>@example.com`; throws unless it completed with a session.
    static func register(_ coordinator: RegistrationCoordinator, _ tag: String) throws {
        let input = RegistrationInput(email: "registrant.\(tag)@example.com", userName: "Registrant \(tag)",
                                      password: "correct horse battery staple", image: nil)
        let result = try coordinator.register(input, idempotencyKey: nil)
        guard result.outcome == .completed, result.sessionId != nil else {
            throw BenchError.failed("registration \(tag) ended \(result.outcome.rawValue): \(result.failure.map { "\($0)" } ?? "")")
        }
    }
}
