import LedgerKit

// MARK: - ImportCommand

/// `ledger import FILE --store URL`: loads a file log into PostgreSQL, all or nothing.
enum ImportCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "import", summary: "load a verified log file into a PostgreSQL store (--store URL), all or nothing",
        positionals: [PositionalSpec(name: "FILE", optional: false, help: "the log to load (verified first)")],
        options: [.option("keys", "FILE", "the log's key store (written by `ledger export --keys`; default: events.keys beside FILE)"),
                  .flag("json", "print {\"lines\",\"inserted\",\"head\"} as JSON")],
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
            let keys = invocation.value("keys")
            if let keys, !FileSystem.exists(keys) { throw CLIError.environment("no key store at \(keys); check the path") }
            report = try PostgresEventStore(url: url, clock: context.clock, random: context.random).importLog(path: path, keyStorePath: keys)
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
