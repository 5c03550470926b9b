import Glibc
import LedgerDomain
import LedgerKit

// MARK: - RegistrationBenchmark

/// Whole registrations per second, in-process: `RegistrationCoordinator.register` without an image
/// (yescrypt cost 1), each one AccountCreated, ProfileWritten and SessionStarted appended durably.
/// This is the "single-registration commit" as the product performs it today.
enum RegistrationBenchmark {
    /// `ledger-bench registrations --count K --dir DIR [--runs R] [--store URL]`: one line per run and the median.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["count", "dir", "runs", "store"])
        guard let directory = options.string("dir") else { throw BenchError.usage("registrations needs --dir DIR") }
        let count = try options.positiveInt("count", default: 200)
        var rates: [Double] = []
        for run in 1...(try options.positiveInt("runs", default: 1)) {
            let seconds = try measure(count: count, directory: FileSystem.join(directory, "registrations-\(run)"), store: options.string("store"))
            rates.append(Double(count) / seconds)
            print("run \(run): \(count) registrations in \(Format.seconds(seconds)): \(Format.fixed(Double(count) / seconds, 1)) registrations/s")
        }
        print("median \(Format.fixed(Stopwatch.median(rates), 1)) registrations/s")
        return 0
    }

    /// Times `count` registrations into a fresh data folder `directory` (after one untimed one). Returns seconds.
    static func measure(count: Int, directory: String, store url: String? = nil) throws -> Double {
        guard !FileSystem.exists(FileSystem.join(directory, "events.jsonl")) else {
            throw BenchError.usage("\(directory) already holds a log; give a fresh folder")
        }
        try FileSystem.makeDirectories(directory)
        let store = try BenchStore.fresh(directory: directory, url: url)
        let coordinator = RegistrationCoordinator(store: store, blobs: FileBlobStore(directory: directory), directory: directory,
                                                  clock: SystemClock(), random: SecureRandom(), hasher: PasswordHasher(cost: 1),
                                                  failpoints: Failpoints(), locks: BenchStore.locks(directory: directory, url: url))
        func register(_ n: Int) throws {
            let input = RegistrationInput(email: "registrant.\(n)@example.com", userName: "Registrant \(n)",
                                          password: "correct horse battery staple", image: nil)
            let result = try coordinator.register(input, idempotencyKey: nil)
            guard result.outcome == .completed, result.sessionId != nil else {
                throw BenchError.failed("registration \(n) ended \(result.outcome.rawValue): \(result.failure.map { "\($0)" } ?? "")")
            }
        }
        try register(0)
        return try Stopwatch.time { for n in 1...count { try register(n) } }
    }
}
