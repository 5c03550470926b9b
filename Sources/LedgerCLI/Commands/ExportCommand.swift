import LedgerDomain
import LedgerKit

// MARK: - ExportCommand

/// `ledger export [--store URL] > events.jsonl`: the log's lines, exactly as stored.
enum ExportCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "export", summary: "write the whole log to standard output as v1 JSON lines, exactly as stored",
        details: "The output is a log `ledger verify` accepts (a backup, or a copy for `ledger import`).\nExit 0 written; 1 damaged (after writing the lines before it); 3 I/O or server error.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        switch try context.storeLocation(invocation) {
        case .postgres(let url):
            try PostgresEventStore(url: url, clock: context.clock, random: context.random).exportLines { chunk in
                context.out(String(decoding: chunk, as: UTF8.self))
            }
            return 0
        case .file:
            let store = context.fileStore(invocation)
            switch try store.exportLines({ context.outBytes($0) }) {
            case .missing: throw CLIError.noLog(at: store.logPath)
            case .damaged(let problem):
                context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
                return CLIError.Status.failure.rawValue
            case .exported(let torn?):
                context.complain("warning: \(torn) — not exported; `ledger recover` repairs it")
                return 0
            case .exported(nil):
                return 0
            }
        }
    }
}
