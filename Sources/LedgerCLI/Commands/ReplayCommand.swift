import LedgerKit

// MARK: - ReplayCommand

/// `ledger replay [FILE]`: rebuilds every view, verifying every hash, and prints a summary.
enum ReplayCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "replay", summary: "rebuild every view from a log, verifying every hash, and summarize",
        positionals: [PositionalSpec(name: "FILE", optional: true, help: "the log (default: --log, else DIR/events.jsonl)")],
        options: ReadOptions.specs)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        var options = invocation.options
        if let file = invocation.positionals.first { options["log"] = file }
        let loaded = try ReadOptions.load(Invocation(spec: spec, options: options, positionals: []), context,
                                          views: [.users, .sessions, .images, .registrations])
        let v = loaded.views
        if invocation.flag("json") {
            // The counts are one more job beside the four digests, on the core that is free first.
            let counts = ViewCounts()
            let asOf = loaded.asOfTime
            let digests = ViewDigest.digests(loaded) { counts.count(v, at: asOf) }
            context.printJSON(.object(JSONObject([
                ("events", .int(v.events)), ("head", v.head.json), ("users", counts.users.json), ("sessions", counts.sessions.json),
                ("images", counts.images.json), ("registrations", counts.outcomes.json),
                ("digest", .object(JSONObject(digests.map { ($0.0, .string($0.1)) }))),
            ])))
        } else {
            let counts = ViewCounts()
            counts.count(v, at: loaded.asOfTime)
            let (users, sessions, images, outcomes) = (counts.users, counts.sessions, counts.images, counts.outcomes)
            context.print("replayed \(v.events) events; head seq \(v.head.seq) hash \(v.head.hash)")
            context.print("users:         \(users.text)")
            context.print("sessions:      \(sessions.text)")
            context.print("images:        \(images.text)")
            context.print("registrations: \(outcomes.text)")
        }
        return 0
    }

    /// Each view's rows counted by status; filled by `count` (on any thread, read after it returns).
    final class ViewCounts: @unchecked Sendable {
        private(set) var users = Counts(pairs: []), sessions = Counts(pairs: []), images = Counts(pairs: []), outcomes = Counts(pairs: [])

        /// Counts the rows of views `v` (sessions' status as of `asOf`).
        func count(_ v: LedgerViews, at asOf: Timestamp) {
            users = ReplayCommand.count(v.users.statuses)
            sessions = ReplayCommand.count(v.sessions.statuses(at: asOf))
            images = ReplayCommand.count(v.images.statuses)
            outcomes = ReplayCommand.count(v.registrations.outcomes)
        }
    }

    /// Counts per value, in the order of the cases.
    static func count<Value: CaseIterable & RawRepresentable & Hashable>(_ values: [Value]) -> Counts where Value.RawValue == String {
        // A handful of cases: a scan of them beats hashing each of a million values.
        let cases = Array(Value.allCases)
        var tally = [Int](repeating: 0, count: cases.count)
        for value in values { if let at = cases.firstIndex(of: value) { tally[at] += 1 } }
        return Counts(pairs: zip(cases, tally).map { ($0.rawValue, $1) })
    }

    /// Ordered counts.
    struct Counts {
        let pairs: [(String, Int)]
        var json: JSONValue { .object(JSONObject(pairs.map { ($0.0, .int($0.1)) })) }
        var text: String { pairs.map { "\($0.1) \($0.0)" }.joined(separator: ", ") }
    }
}
