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
        let users = count(v.users.rows.map(\.status.rawValue), UserRow.Status.allCases.map(\.rawValue))
        let sessions = count(v.sessions.rows.map { $0.status(at: loaded.asOfTime).rawValue }, SessionRow.Status.allCases.map(\.rawValue))
        let images = count(v.images.rows.map(\.status.rawValue), ImageRow.Status.allCases.map(\.rawValue))
        let outcomes = count(v.registrations.rows.map(\.outcome.rawValue), RegistrationState.Outcome.allCases.map(\.rawValue))
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

    /// Counts per key, in the order of `keys`.
    static func count(_ values: [String], _ keys: [String]) -> Counts {
        Counts(pairs: keys.map { key in (key, values.filter { $0 == key }.count) })
    }

    /// Ordered counts.
    struct Counts {
        let pairs: [(String, Int)]
        var json: JSONValue { .object(JSONObject(pairs.map { ($0.0, .int($0.1)) })) }
        var text: String { pairs.map { "\($0.1) \($0.0)" }.joined(separator: ", ") }
    }
}
