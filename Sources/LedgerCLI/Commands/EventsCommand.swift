import LedgerKit

// MARK: - EventsCommand

/// `ledger events [FILE] [--type T] [--stream S] [--from SEQ] [--limit N] [--json] [--follow]`: lists events.
enum EventsCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "events",
        summary: "list the events of a log, verified as they are read",
        positionals: [PositionalSpec(name: "FILE", optional: true, help: "the log (default: DIR/events.jsonl)")],
        options: [
            .option("type", "T", "only events of this type (e.g. AccountCreated)", choices: EventType.allCases.map(\.rawValue)),
            .option("stream", "S", "only events of this stream (e.g. registration-<uuid>)"),
            .option("from", "SEQ", "start at this seq"),
            .option("limit", "N", "print at most N events"),
            .flag("json", "print the matching lines exactly as stored, one JSON object per line"),
            .flag("follow", "then keep printing new events as they are appended, until interrupted"),
        ],
        details: """
        Stops with exit 1 at the first damaged line (after printing the events before it);
        a torn last line is skipped with a warning.
        With --follow: checks the log for new lines every 200 ms, waits for a torn last line to be
        completed, waits for a missing log to appear, and exits 0 on Ctrl-C (SIGINT) or SIGTERM.
        """
    )

    /// Which events to print.
    struct Selection {
        /// Only this type.
        let type: String?
        /// Only this stream.
        let stream: String?
        /// Only from this seq on.
        let from: Int
        /// At most this many.
        let limit: Int

        /// True when `event` is to be printed.
        func matches(_ event: RecordedEvent) -> Bool {
            event.seq >= from && (type == nil || event.envelope.type == type) && (stream == nil || event.stream == stream)
        }
    }

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let selection = Selection(type: invocation.value("type"), stream: invocation.value("stream").map(Identifiers.typed),
                                  from: try invocation.positiveInt("from") ?? 1, limit: try invocation.positiveInt("limit") ?? .max)
        let following = invocation.flag("follow")
        var listing = EventListing(json: invocation.flag("json"), following: following, context: context)
        if following, invocation.positionals.isEmpty, case .postgres(let url) = try context.storeLocation(invocation) {
            let tail = PostgresLogFollower(store: PostgresEventStore(url: url, clock: context.clock, random: context.random))
            return try follow(try postgresSource(tail), selection, &listing, context)
        }
        if following, let file = invocation.positionals.first, Context.standardInputNames.contains(file) {
            throw CLIError.usage("--follow watches a log file; standard input cannot be followed (leave out --follow to read it)")
        }
        let source = try context.logSource(invocation.positionals.first, invocation)
        if following, case .file(let path) = source { return try follow(fileSource(LogFollower(path: path)), selection, &listing, context) }
        let outcome = try source.readEvents { event, line in
            guard selection.matches(event) else { return true }
            listing.add(event, line: line)
            return listing.count < selection.limit
        }
        if outcome == .missing { throw CLIError.noLog(at: source.name) }
        listing.finish()
        switch outcome {
        case .caughtUp(let torn?):
            context.complain("warning: \(torn) — skipped; `ledger recover` or the next write repairs it")
        case .damaged(let problem):
            context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
            return CLIError.Status.failure.rawValue
        default:
            break
        }
        return 0
    }
}
