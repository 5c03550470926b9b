import LedgerKit

// MARK: - BenchStore

/// The store a benchmark run appends to: a fresh file store in a folder, or (with `--store URL`) the
/// PostgreSQL database at URL, emptied first — give it a database of its own.
enum BenchStore {
    /// A fresh, empty store for one run.
    static func fresh(directory: String, url: String?) throws -> any LedgerStore {
        guard let url else { return FileEventStore(directory: directory) }
        guard let parsed = PostgresURL(url) else { throw BenchError.usage("--store needs a postgres:// URL") }
        let connection = try PostgresConnection(parsed)
        try connection.execute("DROP TABLE IF EXISTS ledger_events, ledger_registration_notes")
        let store = PostgresEventStore(url: parsed)
        try store.createSchema()
        return store
    }

    /// The store `fresh` made, opened again (by another process) without emptying it.
    static func existing(directory: String, url: String?) throws -> any LedgerStore {
        guard let url else { return FileEventStore(directory: directory) }
        guard let parsed = PostgresURL(url) else { throw BenchError.usage("--store needs a postgres:// URL") }
        return PostgresEventStore(url: parsed)
    }

    /// The registration locks that go with `fresh`'s store.
    static func locks(directory: String, url: String?) -> any RegistrationLocks {
        guard let url, let parsed = PostgresURL(url) else { return FileRegistrationLocks(directory: directory) }
        return PostgresRegistrationLocks(url: parsed)
    }
}
