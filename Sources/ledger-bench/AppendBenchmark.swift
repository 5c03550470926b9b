import Glibc
import LedgerDomain
import LedgerKit

// MARK: - AppendBenchmark

/// Durable commits through `FileEventStore` (or `PostgresEventStore` with `--store URL`), in-process:
/// each append takes the lock, writes its lines and fsyncs (or COMMITs) before returning. A commit is
/// one event (`--batch event`, the default), or one registration as `ledger register` commits it
/// (`--batch registration`: `AccountCreated` and `ProfileWritten` in its stream and the first
/// session's `SessionStarted` in its own, under the email-uniqueness condition), without the password hash.
enum AppendBenchmark {
    /// `ledger-bench append --count K --dir DIR [--runs R] [--store URL] [--batch event|registration]`:
    /// prints one line per run and the median.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["count", "dir", "runs", "store", "batch"])
        guard let directory = options.string("dir") else { throw BenchError.usage("append needs --dir DIR") }
        let count = try options.positiveInt("count", default: 1000)
        let batch = options.string("batch") ?? "event"
        guard batch == "event" || batch == "registration" else { throw BenchError.usage("--batch is event or registration, not \(batch)") }
        var rates: [Double] = []
        for run in 1...(try options.positiveInt("runs", default: 1)) {
            let seconds = try measure(count: count, directory: FileSystem.join(directory, "append-\(run)"), store: options.string("store"),
                                      registrations: batch == "registration")
            rates.append(Double(count) / seconds)
            print("run \(run): \(count) appends in \(Format.seconds(seconds)): \(Format.fixed(Double(count) / seconds, 1)) appends/s")
        }
        print("median \(Format.fixed(Stopwatch.median(rates), 1)) appends/s")
        return 0
    }

    /// Times `count` appends (each its own registration stream, one fsync each) of one event, or of one
    /// registration with `registrations`, into a fresh store in `directory`, after one untimed append
    /// that creates the log. Returns seconds.
    static func measure(count: Int, directory: String, store url: String? = nil, registrations: Bool = false) throws -> Double {
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
        let seconds = try Stopwatch.time { for n in 1...count { try append(n) } }
        if url == nil { try FileSystem.remove(FileSystem.join(directory, "events.jsonl")) }
        return seconds
    }
}
