import LedgerDomain
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
        let loaded = try ReadOptions.load(Invocation(spec: spec, options: options, positionals: []), context)
        let v = loaded.views
        let users = count(v.users.statuses)
        let sessions = count(v.sessions.statuses(at: loaded.asOfTime))
        let images = count(v.images.statuses)
        let outcomes = count(v.registrations.outcomes)
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("events", .int(v.events)), ("head", v.head.json), ("users", users.json), ("sessions", sessions.json),
                ("images", images.json), ("registrations", outcomes.json), ("digest", digest(loaded)),
            ])))
        } else {
            context.print("replayed \(v.events) events; head seq \(v.head.seq) hash \(v.head.hash)")
            context.print("users:         \(users.text)")
            context.print("sessions:      \(sessions.text)")
            context.print("images:        \(images.text)")
            context.print("registrations: \(outcomes.text)")
        }
        return 0
    }

    /// SHA-256 of each view's canonical JSON (see `ViewDigest`).
    static func digest(_ loaded: LoadedViews) -> JSONValue {
        .object(JSONObject(ViewDigest.digests(loaded).map { ($0.0, .string($0.1)) }))
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
