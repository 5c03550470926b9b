import LedgerDomain
import LedgerKit

// MARK: - GenerationSummary

/// What `generate` wrote.
struct GenerationSummary {
    /// Lines written.
    var events = 0
    /// File size.
    var bytes = 0
    /// Wall time of the generation, seconds.
    var seconds = 0.0
    /// The last line's seq and hash.
    var head = Head.empty
    /// Events per type.
    var typeCounts: [EventType: Int] = [:]

    /// Registrations: each ends in exactly one `ProfileWritten` or one `Failed`.
    var registrations: Int { typeCounts[.profileWritten, default: 0] + typeCounts[.failed, default: 0] }
    /// The share of registrations that failed.
    var failureShare: Double { registrations == 0 ? 0 : Double(typeCounts[.failed, default: 0]) / Double(registrations) }

    /// A few human lines.
    var report: [String] {
        let mix = EventType.allCases.map { "\($0.rawValue) \(typeCounts[$0, default: 0])" }.joined(separator: ", ")
        return [
            "wrote \(events) events, \(bytes) bytes (\(bytes / max(events, 1)) bytes/line) in \(Format.seconds(seconds))",
            "head seq \(head.seq) hash \(head.hash)",
            "types: \(mix)",
            "registrations \(registrations), failed \(typeCounts[.failed, default: 0]) (\(Format.percent(failureShare)))",
        ]
    }
}

// MARK: - GenerateCommand

/// `ledger-bench generate --events N --out FILE [--seed S]`.
enum GenerateCommand {
    /// The first event's time; events follow 40–700 ms apart.
    static let start = Timestamp(rfc3339: "2026-11-20T08:00:00.000Z")!
    /// Distinct real yescrypt strings used as password hashes (computed once per run, cost 1).
    static let passwordCount = 4

    /// Runs it.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try Options(arguments, allowed: ["events", "out", "seed"])
        guard let out = options.string("out") else { throw BenchError.usage("generate needs --out FILE") }
        let summary = try generate(events: try options.positiveInt("events", default: 100_000), to: out,
                                   seed: try options.seed("seed", default: 1))
        summary.report.forEach { print($0) }
        return 0
    }

    /// Writes a log of `events` events to `path`, the same bytes for the same `seed`.
    static func generate(events: Int, to path: String, seed: UInt64) throws -> GenerationSummary {
        let began = Stopwatch.now()
        let salts = SeededRandom(seed: seed ^ 0x5EED)
        let hasher = PasswordHasher(cost: 1)
        let hashes = try (0..<passwordCount).map { n in try hasher.hash("correct horse battery staple \(n)", random: salts) }
        var generator = LogGenerator(seed: seed, start: start, passwordHashes: hashes)
        let writer = try LogWriter(path: path)
        var summary = GenerationSummary()
        for remaining in stride(from: events, to: 0, by: -1) {
            let event = generator.next(remaining: remaining)
            summary.typeCounts[event.event.type, default: 0] += 1
            try writer.append(event)
        }
        try writer.finish()
        summary.events = events
        summary.bytes = writer.bytes
        summary.head = writer.head
        summary.seconds = Stopwatch.now() - began
        return summary
    }
}
