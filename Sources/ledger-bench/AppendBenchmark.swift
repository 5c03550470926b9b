import Glibc
import LedgerDomain
import LedgerKit
import Synchronization

// MARK: - AppendBenchmark

/// Durable commits through `FileEventStore` (or `PostgresEventStore` with `--store URL`), in-process:
/// each append takes the lock, writes its lines and fsyncs (or COMMITs) before returning. A commit is
/// one event (`--batch event`, the default), or one registration as `ledger register` commits it
/// (`--batch registration`: `AccountCreated` and `ProfileWritten` in its stream and the first
/// session's `SessionStarted` in its own, under the email-uniqueness condition), without the password hash.
enum AppendBenchmark {
    /// `ledger-bench append --count K --dir DIR [--runs R] [--store URL] [--batch event|registration]
    /// [--tasks N] [--json]`: prints one line per run and the median, or (`--json`) one object with
    /// the median `commitsPerSecond` (acknowledged durable batches) and `syncsPerSecond`. With
    /// `--tasks N` (file store), N threads append at once through one `GroupCommitter`.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["count", "dir", "runs", "store", "batch", "tasks", "json"])
        guard let directory = options.string("dir") else { throw BenchError.usage("append needs --dir DIR") }
        let count = try options.positiveInt("count", default: 1000)
        let tasks = try options.positiveInt("tasks", default: 1)
        let json = options.flag("json")
        let batch = options.string("batch") ?? "event"
        guard batch == "event" || batch == "registration" else { throw BenchError.usage("--batch is event or registration, not \(batch)") }
        guard tasks == 1 || options.string("store") == nil else { throw BenchError.usage("--tasks above 1 measures the file store's group commit; leave out --store") }
        var commits: [Double] = [], syncs: [Double] = []
        for run in 1...(try options.positiveInt("runs", default: 1)) {
            let (seconds, syncCount) = try measure(count: count, directory: FileSystem.join(directory, "append-\(run)"), store: options.string("store"),
                                                   registrations: batch == "registration", tasks: tasks)
            commits.append(Double(count) / seconds)
            syncs.append(Double(syncCount) / seconds)
            if !json {
                print("run \(run): \(count) appends in \(Format.seconds(seconds)) (\(tasks) task\(tasks == 1 ? "" : "s"), \(syncCount) syncs): "
                      + "\(Format.fixed(Double(count) / seconds, 1)) appends/s")
            }
        }
        if json {
            print("{\"tasks\":\(tasks),\"count\":\(count),\"batch\":\"\(batch)\",\"commitsPerSecond\":\(Format.fixed(Stopwatch.median(commits), 1)),"
                  + "\"syncsPerSecond\":\(Format.fixed(Stopwatch.median(syncs), 1))}")
        } else {
            print("median \(Format.fixed(Stopwatch.median(commits), 1)) appends/s")
        }
        return 0
    }

    /// Times `count` appends (each its own registration stream, one fsync each) of one event, or of one
    /// registration with `registrations`, into a fresh store in `directory`, after one untimed append
    /// that creates the log. With `tasks` above 1, that many threads append at once through one
    /// `GroupCommitter` (each batch acknowledged once durable). Returns seconds and the syncs made.
    static func measure(count: Int, directory: String, store url: String? = nil, registrations: Bool = false,
                        tasks: Int = 1) throws -> (seconds: Double, syncs: Int) {
        try FileSystem.makeDirectories(directory)
        for name in ["events.jsonl", "events.lock"] where FileSystem.exists(FileSystem.join(directory, name)) {
            try FileSystem.remove(FileSystem.join(directory, name))
        }
        let store = try BenchStore.fresh(directory: directory, url: url)
        var rng = SplitMix64(seed: UInt64(count))
        var generator = LogGenerator(seed: 7, start: Timestamp(millis: 0), passwordHashes: ["$y$j75$placeholdersalt$placeholderhash"])
        // Every batch is made before the clock starts (as the SQLite script makes its rows): only commits are timed.
        func batch(_ n: Int) -> [StreamAppend] {
            let uid = generator.uuid(), email = "appender.\(n).\(rng.below(1_000_000))@example.com"
            let event = AccountCreated(uid: uid, email: email,
                                       passwordHash: "$y$j75$ZxoaBuQzlfJwNCzMcO4c1.$Wcv3ZGs6aqBZhNoJ1mc1s3QDW2rzfGm6rgjlOhsRQk1",
                                       withImage: false)
            let stream = StreamCategory.registration.stream(generator.uuid())
            guard registrations else { return [StreamAppend([.accountCreated(event)], to: stream, expected: .noStream)] }
            let profile = ProfileWritten(uid: uid, email: email, userName: "Appender \(n)", profileImageName: nil, createdAt: Timestamp(millis: 0))
            let sessionId = generator.uuid()
            let session = SessionStarted(sessionId: sessionId, uid: uid, tokenHash: String(repeating: "ab", count: 32),
                                         expiresAt: Timestamp(millis: 86_400_000))
            return [StreamAppend([.accountCreated(event), .profileWritten(profile)], to: stream, expected: .noStream),
                    StreamAppend([.sessionStarted(session)], to: StreamCategory.session.stream(sessionId), expected: .noStream)]
        }
        let batches = (0...count).map(batch)
        func append(_ n: Int) throws {
            // A registration checks its email as `register` does; a single event needs no condition.
            _ = try store.append(batches[n], condition: registrations ? .uniqueEmails : nil)
        }
        try append(0)
        guard tasks > 1, let fileStore = store as? FileEventStore else {
            let seconds = try Stopwatch.time { for n in 1...count { try append(n) } }
            if url == nil { try FileSystem.remove(FileSystem.join(directory, "events.jsonl")) }
            return (seconds, count)
        }
        let committer = GroupCommitter(store: fileStore)
        let shared = batches
        let failures = Mutex<[String]>([])
        let seconds = Stopwatch.time {
            OwnThreads.run(tasks) { task in
                // Task k appends batches k+1, k+1+tasks, …: every batch once.
                for n in stride(from: task + 1, through: count, by: tasks) {
                    do { _ = try committer.append(shared[n], condition: registrations ? .uniqueEmails : nil) } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw BenchError.usage("an append failed: \(failure)") }
        try FileSystem.remove(FileSystem.join(directory, "events.jsonl"))
        return (seconds, committer.groupsWritten)
    }
}
