import LedgerDomain
import LedgerKit

// MARK: - InitCommand

/// `ledger init [--store URL]`: creates the PostgreSQL tables (idempotent), or the data directory.
enum InitCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "init", summary: "prepare a store: create the PostgreSQL tables (--store URL) or the data directory",
        details: "Idempotent: running it again changes nothing. Exit 0 ready; 3 when the server or folder cannot be reached.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        switch try context.storeLocation(invocation) {
        case .postgres(let url):
            try PostgresEventStore(url: url, clock: context.clock, random: context.random).createSchema()
            context.print("PostgreSQL store ready at \(url.redacted)")
        case .file(let directory):
            try FileSystem.makeDirectories(directory)
            context.print("file store ready in \(directory) (events.jsonl is created by the first write)")
        }
        return 0
    }
}

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
            let path = context.fileStore(invocation).logPath
            let outcome = try LogTail(path: path).read { _, line in
                context.out(String(decoding: line, as: UTF8.self) + "\n")
                return true
            }
            switch outcome {
            case .missing: throw CLIError.noLog(at: path)
            case .damaged(let problem):
                context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
                return CLIError.Status.failure.rawValue
            case .caughtUp(let torn?):
                context.complain("warning: \(torn) — not exported; `ledger recover` repairs it")
                return 0
            default:
                return 0
            }
        }
    }
}

// MARK: - ImportCommand

/// `ledger import FILE --store URL`: loads a file log into PostgreSQL, all or nothing.
enum ImportCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "import", summary: "load a verified log file into a PostgreSQL store (--store URL), all or nothing",
        positionals: [PositionalSpec(name: "FILE", optional: false, help: "the log to load (verified first)")],
        options: [.flag("json", "print {\"lines\",\"inserted\",\"head\"} as JSON")],
        details: """
        Keeps every seq, id, at, prev and hash. The store must be empty, or hold a prefix of FILE
        (then only the lines after its head are added). Exit 0 imported; 1 FILE damaged or not a
        continuation of the store; 2 usage; 3 I/O or server error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        guard case .postgres(let url) = try context.storeLocation(invocation) else {
            throw CLIError.usage("`ledger import` loads into a PostgreSQL store: pass --store postgres://… or set LEDGER_STORE")
        }
        let path = invocation.positionals[0]
        let report: ImportReport
        do {
            report = try PostgresEventStore(url: url, clock: context.clock, random: context.random).importLog(path: path)
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.environment("no log at \(path); check the path")
        } catch let error as StoreError where error.code == .io && error.message.contains("No such file") {
            throw CLIError.environment("no log at \(path); check the path")
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("lines", .int(report.lines)), ("inserted", .int(report.inserted)), ("head", report.head.json)])))
        } else {
            context.print("imported \(report.inserted) of \(report.lines) events into \(url.redacted); head seq \(report.head.seq) hash \(report.head.hash)")
        }
        return 0
    }
}
