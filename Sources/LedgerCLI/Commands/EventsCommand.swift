import Glibc
import LedgerDomain
import LedgerKit

// MARK: - EventsCommand

/// `ledger events [FILE] [--type T] [--stream S] [--from SEQ] [--limit N] [--json]`: lists events.
enum EventsCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "events",
        summary: "list the events of a log, verified as they are read",
        positionals: [PositionalSpec(name: "FILE", optional: true, help: "the log (default: DIR/events.jsonl)")],
        options: [
            .option("type", "T", "only events of this type (e.g. AccountCreated)"),
            .option("stream", "S", "only events of this stream (e.g. registration-<uuid>)"),
            .option("from", "SEQ", "start at this seq"),
            .option("limit", "N", "print at most N events"),
            .flag("json", "print the matching lines exactly as stored, one JSON object per line"),
        ],
        details: "Stops with exit 1 at the first damaged line (after printing the events before it);\na torn last line is skipped with a warning."
    )

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let path = invocation.positionals.first ?? context.store(invocation).logPath
        let type = invocation.value("type")
        if let type, EventType(rawValue: type) == nil {
            let hint = Suggestions.closest(to: type, among: EventType.allCases.map(\.rawValue)).map { " (did you mean \($0)?)" } ?? ""
            throw CLIError.usage("unknown event type \"\(type)\" for --type\(hint)")
        }
        let stream = invocation.value("stream")
        let from = try invocation.positiveInt("from") ?? 1
        let limit = try invocation.positiveInt("limit") ?? .max
        let json = invocation.flag("json")
        let file: FileDescriptor
        do {
            file = try FileDescriptor(path: path, flags: O_RDONLY)
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.environment("no log at \(path)")
        }
        var table = Table(headers: ["SEQ", "AT", "TYPE", "STREAM"])
        var printed = 0
        var stop: LogProblem?
        var torn: LogProblem?
        var checker = ChainChecker()
        try LogScanner.scanLines(file, checker: &checker) { item, line in
            switch item {
            case .event(let event, _, _):
                guard event.seq >= from, type == nil || event.envelope.type == type, stream == nil || event.stream == stream else { return true }
                if json {
                    context.print(String(decoding: line, as: UTF8.self))
                } else {
                    table.rows.append([String(event.seq), event.at.rfc3339, event.envelope.type, event.stream])
                }
                printed += 1
                return printed < limit
            case .problem(let problem, _, _):
                stop = problem
                return false
            case .tornTail(let problem, _, _):
                torn = problem
                return false
            }
        }
        if !json {
            table.render().forEach(context.print)
            context.print("\(printed) event\(printed == 1 ? "" : "s")")
        }
        if let torn { context.complain("warning: \(torn) — skipped; `ledger recover` or the next write repairs it") }
        if let stop {
            context.complain("\(stop) — stopped there; run `ledger verify` for the full report")
            return CLIError.Status.failure.rawValue
        }
        return 0
    }
}
