import LedgerKit

// MARK: - InitCommand

/// `ledger init [--store URL]`: creates the PostgreSQL tables (idempotent), or the data directory.
enum InitCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "init", summary: "prepare a store: create the PostgreSQL tables (--store URL) or the data directory",
        options: [.flag("json", "print the outcome as JSON")],
        details: "Idempotent: running it again changes nothing. Exit 0 ready; 3 when the server or folder cannot be reached.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        switch try context.storeLocation(invocation) {
        case .postgres(let url):
            try PostgresEventStore(url: url, clock: context.clock, random: context.random).createSchema()
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([("status", .string("ready")), ("store", .string("postgres")), ("url", .string(url.redacted)),
                                                      ("schemaVersion", .int(PostgresSchema.version))])))
            } else {
                context.print("PostgreSQL store ready at \(url.redacted)")
            }
        case .file(let directory):
            try FileSystem.makeDirectories(directory)
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([("status", .string("ready")), ("store", .string("file")), ("data", .string(directory))])))
            } else {
                context.print("file store ready in \(directory) (events.jsonl is created by the first write)")
            }
        }
        return 0
    }
}
