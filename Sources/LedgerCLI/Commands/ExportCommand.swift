import LedgerKit

// MARK: - ExportCommand

/// `ledger export [--store URL] > events.jsonl`: the log's lines, exactly as stored.
enum ExportCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "export", summary: "write the whole log to standard output as JSON lines, exactly as stored",
        options: [.option("keys", "FILE", "also write the data keys (a key store file, mode 0600) to FILE: the log's personal data opens only with them")],
        details: """
        The output is a log `ledger verify` accepts (a backup, or a copy for `ledger import`). A data version 2 log's
        personal members stay encrypted: `--keys FILE` writes its key store beside the export (keep it as secret as the
        data; an erasure after the export does not reach this copy), for `verify --keys FILE` and `import --keys FILE`.
        Exit 0 written; 1 damaged (after writing the lines before it), or --keys on a data version 1 log; 3 I/O or server error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        if let keys = invocation.value("keys") { try exportKeys(to: keys, invocation, context) }
        let outcome: LogExport.Outcome
        var logPath = ""
        let location = try context.storeLocation(invocation)
        switch location {
        case .postgres(let url):
            outcome = try PostgresEventStore(url: url, clock: context.clock, random: context.random).exportLines { context.outBytes($0) }
        case .file:
            let store = context.fileStore(invocation)
            logPath = store.logPath
            outcome = try store.exportLines { context.outBytes($0) }
        }
        switch outcome {
        case .missing: throw CLIError.noLog(at: logPath)
        case .damaged(let problem):
            context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
            return CLIError.Status.failure.rawValue
        case .exported(let torn?):
            // On PostgreSQL the cut batch's rows were committed: the export leaves out what the
            // store lost, which is damage, not a torn write a writer repairs.
            guard case .postgres = location else {
                context.complain("warning: \(torn) — not exported; `ledger recover` repairs it")
                return 0
            }
            context.complain("\(torn) — not exported; run `ledger verify` for the full report")
            return CLIError.Status.failure.rawValue
        case .exported(nil):
            return 0
        }
    }

    /// Writes the store's data keys to `path` (before the lines: keys made by later appends are not
    /// needed by the lines exported, which are read after).
    private static func exportKeys(to path: String, _ invocation: Invocation, _ context: Context) throws {
        guard !path.isEmpty else { throw CLIError.usage("--keys needs a file to write the keys to") }
        let folder = FileSystem.directoryName(path)
        guard FileSystem.exists(folder) else {
            throw CLIError.environment("cannot write \(path): the folder \(folder) does not exist; create it or choose another path")
        }
        if case .file = try context.storeLocation(invocation) {
            let live = context.fileStore(invocation).keyStorePath
            // Never over the live key store (a copy renamed over it would lose the keys made meanwhile).
            if let target = FileIdentity(path: path), target == FileIdentity(path: live) {
                throw CLIError.usage("--keys \(path) is the data folder's own key store: export the keys to another file")
            }
        }
        switch try context.storeLocation(invocation) {
        case .postgres(let url):
            let store = PostgresEventStore(url: url, clock: context.clock, random: context.random)
            guard try store.checkedDataVersion() >= 2 else { throw CLIError.failure("the store is data version 1: it has no data keys to export") }
            // A key the log erased (a row restored from a backup taken before the erasure) is written as erased.
            let erased = Set(try store.scanViews(wanted: { $0.fact.erasedSubject != nil }, visit: { _, _ in }).compactMap(\.event.erasedSubject))
            try KeyStoreCopy.write(try store.exportKeys().map { erased.contains($0.subject) ? ($0.subject, nil) : $0 }, to: path)
        case .file:
            let store = context.fileStore(invocation)
            guard FileSystem.exists(store.keyStorePath) else { throw CLIError.failure("the log is data version 1: it has no data keys to export") }
            let erased = try store.scanViews(wanted: { $0.fact.erasedSubject != nil }, visit: { _, _ in }).compactMap(\.event.erasedSubject)
            try KeyStoreCopy.write(copyOfStoreAt: store.keyStorePath, erased: Set(erased), to: path)
        }
    }
}
