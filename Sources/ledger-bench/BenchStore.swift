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
        // Every table of the store, so a run starts from nothing (the account state, keys and
        // checkpoints of a previous run would not match the new log).
        try connection.execute("""
            DROP TABLE IF EXISTS ledger_events, ledger_registration_notes, ledger_checkpoints, ledger_tree, ledger_signin_pending,
              ledger_accounts, ledger_account_emails, ledger_signin_failures, ledger_account_state, ledger_keys, ledger_store
            """)
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

    /// A group committer over a store of its own (the file under `directory`, or the database at `url`).
    static func committer(directory: String, url: String?) throws -> GroupCommitter {
        guard let url else { return GroupCommitter(store: FileEventStore(directory: directory)) }
        guard let parsed = PostgresURL(url) else { throw BenchError.usage("--store needs a postgres:// URL") }
        return GroupCommitter(store: PostgresEventStore(url: parsed))
    }

    /// A store of one thread's own (its own connection on PostgreSQL) whose appends go through `committer`.
    static func grouped(directory: String, url: String?, committer: GroupCommitter) throws -> any LedgerStore {
        guard let url else {
            let store = FileEventStore(directory: directory)
            store.groupCommitter = committer
            return store
        }
        guard let parsed = PostgresURL(url) else { throw BenchError.usage("--store needs a postgres:// URL") }
        let store = PostgresEventStore(url: parsed)
        store.groupCommitter = committer
        return store
    }
}
