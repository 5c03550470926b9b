import LedgerDomain
import LedgerKit

// MARK: - VerifyCommand

/// `ledger verify [FILE] [--json]`: checks every line, hash and link of a log.
enum VerifyCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "verify",
        summary: "check that a log is intact: JSON, seq, every hash and prev link, types and data",
        positionals: [PositionalSpec(name: "FILE", optional: true, help: "the log (default: DIR/events.jsonl)")],
        options: [.flag("json", "print {\"ok\",\"events\",\"head\",\"problems\"} as JSON")],
        details: "Exit 0 and print the head when intact; exit 1 naming the first bad line and its kind\n(torn-tail, invalid-json, seq-gap, bad-hash, broken-chain, unknown-type, invalid-data)."
    )

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let path = try invocation.positionals.first ?? context.defaultLogPath(invocation)
        let report: VerifyReport
        do {
            report = try LogVerifier.verify(path: path)
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.noLog(at: path)
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("ok", .bool(report.ok)), ("events", .int(report.events)), ("head", report.head.json),
                ("problems", .array(report.problems.map(\.json))),
            ])))
        } else if report.ok {
            context.print(context.style.green("ok:") + " \(report.events) events, head seq \(report.head.seq) hash \(report.head.hash)")
        } else {
            for problem in report.problems { context.print("line \(problem.line): \(problem.kind.rawValue): \(problem.message)") }
            let first = report.problems[0]
            context.print(context.style.red("NOT INTACT:") + " first problem on line \(first.line) (\(first.kind.rawValue)); intact through seq \(report.head.seq) hash \(report.head.hash)")
        }
        return report.ok ? 0 : CLIError.Status.failure.rawValue
    }
}
