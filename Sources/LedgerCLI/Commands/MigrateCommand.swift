import LedgerKit

// MARK: - MigrateCommand

/// `ledger migrate --from LOG [--data DIR] [--json]`: copies a data version 1 log into a new data
/// folder in data version 2, where personal data can be erased.
enum MigrateCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "migrate", summary: "copy a data version 1 log into a new data folder in data version 2 (personal data encrypted, erasable)",
        options: [
            .option("from", "LOG", "the data version 1 log to copy (verified first; never changed)", required: true),
            .flag("json", "print {\"status\",\"events\",\"fromHead\",\"head\",\"data\",\"images\"} as JSON"),
        ],
        details: """
        Writes a new data folder DIR (--data; absent or empty): its first line is a LogMigrated event naming
        LOG's head and event count, then every event of LOG with its id, type, stream, at and batch kept
        (seq shifted by one, a new chain), its personal members encrypted under their subject's key; the
        profile images beside LOG are copied. Built in DIR.migrating-<pid> and renamed into place once synced.
        `ledger verify --migrated-from LOG` checks the result event for event.
        Exit 0 migrated; 1 refused: LOG damaged (damaged), already data version 2 (already-version-2),
        without events (empty-log), changed meanwhile (log-changed), or DIR not empty (target-not-empty);
        2 usage (--store: migrate into a data folder, then `ledger import`); 3 I/O error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        if invocation.value("store") != nil {
            throw CLIError.usage("migrate into PostgreSQL is not supported yet: migrate into a data folder (--data DIR), then `ledger import`",
                                 code: "store-not-supported")
        }
        let given = invocation.value("from") ?? ""
        let log = try context.logFile(given)
        let directory = context.dataDirectory(invocation)
        let report: LogMigration.Report
        do {
            report = try LogMigration.migrate(from: log, into: directory, clock: context.clock, random: context.random)
        } catch let error as SystemError where error.isNotFound && error.path == log {
            throw CLIError.noLog(at: given)
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("migrated")), ("events", .int(report.events)), ("fromHead", .string(report.fromHead.anchor)),
                ("head", .string(report.head.anchor)), ("data", .string(directory)), ("images", .int(report.images)),
            ])))
        } else {
            let images = report.images == 0 ? "" : "; \(report.images) profile image\(report.images == 1 ? "" : "s") copied"
            context.print("migrated \(report.events) events from \(given) (head \(report.fromHead.anchor)) into \(directory); new head \(report.head.anchor)\(images)")
        }
        return 0
    }
}
