import Glibc
import LedgerDomain
import LedgerKit

// MARK: - RunCommand

/// `ledger-bench run`: generates (or reuses) a log of N events, warms the page cache, times a first
/// `replay --json` (which saves `LOG.checkpoint`), then times the built `ledger` binary R times,
/// interleaved: `replay --json` in full (`LEDGER_CHECKPOINT_EVERY=0`: every line read and verified)
/// and with the checkpoint present, `verify --json`, and `register`
/// (`LEDGER_HASH_COST=1`, `--password-stdin`) on an empty data folder and on one holding the log;
/// then R rounds of K durable single-event appends through `FileEventStore` and of K / 5 whole
/// registrations through `RegistrationCoordinator`, in this process.
/// Prints a markdown table of medians and the command lines.
enum RunCommand {
    /// The password every timed registration uses (cost 1, so hashing stays a few milliseconds).
    static let password = "correct horse battery staple"

    /// Samples of one measure.
    struct Samples {
        var seconds: [Double] = []
        var maxRSSKiB: [Int] = []
        var median: Double { Stopwatch.median(seconds) }
    }

    /// Runs it.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["events", "runs", "ledger", "work", "log", "appends", "seed"])
        let events = try options.positiveInt("events", default: 1_000_000)
        let runs = try options.positiveInt("runs", default: 5)
        let appends = try options.positiveInt("appends", default: 1000)
        let seed = try options.seed("seed", default: 1)
        let ledger = options.string("ledger") ?? FileSystem.join(Files.executableDirectory(), "ledger")
        guard access(ledger, X_OK) == 0 else { throw BenchError.usage("no ledger binary at \(ledger) (build it, or pass --ledger PATH)") }
        let work = options.string("work") ?? "/tmp/ledger-bench"
        try FileSystem.makeDirectories(work)
        let scratch = FileSystem.join(work, "scratch-\(getpid())")
        try FileSystem.makeDirectories(scratch)
        defer { try? Files.removeTree(scratch, scratch: work) }

        // The log.
        let log = options.string("log") ?? FileSystem.join(work, "events-\(events)-seed\(seed).jsonl")
        if FileSystem.exists(log) {
            print("reusing \(log)")
        } else {
            print("generating \(events) events into \(log)")
            try GenerateCommand.generate(events: events, to: log, seed: seed).report.forEach { print("  " + $0) }
        }
        let verified = try Subprocess.run(ledger, ["verify", log, "--json"], scratch: scratch)
        guard verified.status == 0 else { throw BenchError.failed("ledger verify \(log) failed:\n\(verified.stdout)\(verified.stderr)") }
        let lines = try countLines(log)

        // A data folder holding the big log, copied once (fsynced, untimed).
        let bigData = FileSystem.join(scratch, "big")
        try FileSystem.makeDirectories(bigData)
        try Files.copy(log, to: FileSystem.join(bigData, "events.jsonl"))
        try Files.warm(log)
        try Files.warm(FileSystem.join(bigData, "events.jsonl"))

        var replay = Samples(), replayFirst = Samples(), replayCheckpoint = Samples(), verify = Samples()
        var registerEmpty = Samples(), registerBig = Samples()
        if FileSystem.exists(log + ".checkpoint") { try FileSystem.remove(log + ".checkpoint") }
        try record(&replayFirst, try check(Subprocess.run(ledger, ["replay", log, "--json"], scratch: scratch), "replay"))
        for round in 1...runs {
            try record(&replay, try check(Subprocess.run(ledger, ["replay", log, "--json"], environment: ["LEDGER_CHECKPOINT_EVERY": "0"],
                                                         scratch: scratch), "replay"))
            try record(&replayCheckpoint, try check(Subprocess.run(ledger, ["replay", log, "--json"], scratch: scratch), "replay"))
            try record(&verify, try check(Subprocess.run(ledger, ["verify", log, "--json"], scratch: scratch), "verify"))
            let emptyData = FileSystem.join(scratch, "empty-\(round)")
            try record(&registerEmpty, try register(ledger, data: emptyData, email: "bench.empty.\(round)@example.com", scratch: scratch))
            try Files.removeTree(emptyData, scratch: scratch)
            try record(&registerBig, try register(ledger, data: bigData, email: "bench.big.\(round)@example.com", scratch: scratch))
            print("round \(round)/\(runs): replay \(Format.seconds(replay.seconds.last!)), from the checkpoint \(Format.seconds(replayCheckpoint.seconds.last!)), verify \(Format.seconds(verify.seconds.last!)), register empty \(Format.seconds(registerEmpty.seconds.last!)), register on the log \(Format.seconds(registerBig.seconds.last!))")
        }
        var appendSeconds: [Double] = [], registrationSeconds: [Double] = []
        let registrations = max(1, appends / 5)
        for round in 1...runs {
            appendSeconds.append(try AppendBenchmark.measure(count: appends, directory: FileSystem.join(scratch, "append-\(round)")).seconds)
            registrationSeconds.append(try RegistrationBenchmark.measure(count: registrations, directory: FileSystem.join(scratch, "registrations-\(round)")))
        }

        let size = try FileDescriptor(path: log, flags: O_RDONLY).size()
        var table = ResultTable(headers: ["measure", "median", "rate", "peak RSS", "command"])
        func row(_ name: String, _ samples: Samples, rate: String, _ command: String) {
            table.add([name, Format.seconds(samples.median), rate, Format.mebibytes(kibibytes: samples.maxRSSKiB.max() ?? 0), command])
        }
        let eventsPerSecond = { (samples: Samples) in "\(Format.grouped(Double(lines) / samples.median)) events/s" }
        row("replay, full", replay, rate: eventsPerSecond(replay), "LEDGER_CHECKPOINT_EVERY=0 ledger replay LOG --json")
        row("replay, checkpoint present", replayCheckpoint, rate: eventsPerSecond(replayCheckpoint), "ledger replay LOG --json")
        row("replay, first (1 run)", replayFirst, rate: eventsPerSecond(replayFirst), "ledger replay LOG --json (no checkpoint yet; saves one)")
        row("verify", verify, rate: eventsPerSecond(verify), "ledger verify LOG --json")
        row("register, empty data folder", registerEmpty, rate: "–", "LEDGER_HASH_COST=1 ledger register --data EMPTY --email E --username U --password-stdin --json")
        row("register, data folder with LOG", registerBig, rate: "\(Format.fixed(registerBig.median / registerEmpty.median, 1))× empty", "same, --data BIG (BIG/events.jsonl = LOG)")
        let appendMedian = Stopwatch.median(appendSeconds)
        table.add(["durable append", "\(Format.fixed(appendMedian / Double(appends) * 1000, 3)) ms/append",
                   "\(Format.fixed(Double(appends) / appendMedian, 1)) appends/s", "–",
                   "\(appends) × FileEventStore.append([AccountCreated]) in-process, one fsync each"])
        let registrationMedian = Stopwatch.median(registrationSeconds)
        table.add(["durable registration", "\(Format.fixed(registrationMedian / Double(registrations) * 1000, 3)) ms/registration",
                   "\(Format.fixed(Double(registrations) / registrationMedian, 1)) registrations/s", "–",
                   "\(registrations) × RegistrationCoordinator.register (no image, yescrypt cost 1) in-process"])
        print("")
        print("LOG = \(log): \(lines) events, \(size) bytes; \(runs) runs each, interleaved; medians; ledger = \(ledger)")
        table.render().forEach { print($0) }
        return 0
    }

    private static func check(_ result: ChildResult, _ what: String) throws -> ChildResult {
        guard result.status == 0 else { throw BenchError.failed("\(what) exited \(result.status):\n\(result.stdout)\(result.stderr)") }
        return result
    }

    private static func record(_ samples: inout Samples, _ result: ChildResult) throws {
        samples.seconds.append(result.seconds)
        samples.maxRSSKiB.append(result.maxRSSKiB)
    }

    /// One `ledger register` without an image into `data`.
    private static func register(_ ledger: String, data: String, email: String, scratch: String) throws -> ChildResult {
        let result = try Subprocess.run(ledger, ["register", "--data", data, "--email", email, "--username", "Bench Marker",
                                                 "--password-stdin", "--json"],
                                        stdin: password + "\n", environment: ["LEDGER_HASH_COST": "1"], scratch: scratch)
        guard result.status == 0, result.stdout.contains("\"registered\"") else {
            throw BenchError.failed("register into \(data) failed (exit \(result.status)):\n\(result.stdout)\(result.stderr)")
        }
        return result
    }

    /// Lines in `path` (its events, for a clean log).
    private static func countLines(_ path: String) throws -> Int {
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 8 << 20)
        var offset = 0, lines = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in try file.read(into: raw.baseAddress!, count: raw.count, at: offset) }
            if n == 0 { return lines }
            for byte in buffer[0..<n] where byte == 0x0A { lines += 1 }
            offset += n
        }
    }
}
