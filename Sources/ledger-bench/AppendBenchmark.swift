import Glibc
import LedgerDomain
import LedgerKit

// MARK: - AppendBenchmark

/// Durable single-event commits through `FileEventStore` (or `PostgresEventStore` with `--store URL`),
/// in-process: each append takes the lock, writes one line and fsyncs (or COMMITs) before returning,
/// exactly as a registration step does.
enum AppendBenchmark {
    /// `ledger-bench append --count K --dir DIR [--runs R] [--store URL]`: prints one line per run and the median.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["count", "dir", "runs", "store"])
        guard let directory = options.string("dir") else { throw BenchError.usage("append needs --dir DIR") }
        let count = try options.positiveInt("count", default: 1000)
        var rates: [Double] = []
        for run in 1...(try options.positiveInt("runs", default: 1)) {
            let seconds = try measure(count: count, directory: FileSystem.join(directory, "append-\(run)"), store: options.string("store"))
            rates.append(Double(count) / seconds)
            print("run \(run): \(count) appends in \(Format.seconds(seconds)): \(Format.fixed(Double(count) / seconds, 1)) appends/s")
        }
        print("median \(Format.fixed(Stopwatch.median(rates), 1)) appends/s")
        return 0
    }

    /// Times `count` single-event appends (each its own registration stream, one fsync each) into a
    /// fresh store in `directory`, after one untimed append that creates the log. Returns seconds.
    static func measure(count: Int, directory: String, store url: String? = nil) throws -> Double {
        try FileSystem.makeDirectories(directory)
        for name in ["events.jsonl", "events.lock"] where FileSystem.exists(FileSystem.join(directory, name)) {
            try FileSystem.remove(FileSystem.join(directory, name))
        }
        let store = try BenchStore.fresh(directory: directory, url: url)
        var rng = SplitMix64(seed: UInt64(count))
        var generator = LogGenerator(seed: 7, start: Timestamp(millis: 0), passwordHashes: ["$y$j75$placeholdersalt$placeholderhash"])
        func append(_ n: Int) throws {
            let event = AccountCreated(uid: generator.uuid(), email: "appender.\(n).\(rng.below(1_000_000))@example.com",
                                       passwordHash: "$y$j75$ZxoaBuQzlfJwNCzMcO4c1.$Wcv3ZGs6aqBZhNoJ1mc1s3QDW2rzfGm6rgjlOhsRQk1",
                                       withImage: false)
            _ = try store.append([.accountCreated(event)], to: StreamCategory.registration.stream(generator.uuid()), expected: .noStream)
        }
        try append(0)
        let seconds = try Stopwatch.time { for n in 1...count { try append(n) } }
        if url == nil { try FileSystem.remove(FileSystem.join(directory, "events.jsonl")) }
        return seconds
    }
}
