import LedgerDomain

// MARK: - PostgresSchema: data version 2

/// The tables of data version 2 (`ledger init` adds them to a store made before; so does the first
/// append of a build that knows them):
/// - `ledger_keys`, by subject (`account-<uid>`, `address-<day>`): its random 256-bit data key, or
///   `erased` with no key once its erasure was appended (in the same transaction). Written in the
///   transaction of the append whose lines need the key.
/// - `ledger_store`, one row: the version of these tables (`schema_version`: a build that knows
///   an older one refuses the store) and the log's data version (`data_version`): 2 for a store
///   that held no line when the row was made, 1 for one that held version 1 lines, which keeps being
///   written in version 1.
///
/// In a version 2 store, `ledger_events` also refuses a line holding a personal member in clear
/// (`ledger_events_personal_data_sealed`): what a build that predates version 2 would write, so such
/// a build is refused by the server, naming the constraint, instead of writing plaintext.
extension PostgresSchema {
    /// The version of the tables this build makes and reads: 3 names the column of the password
    /// line `password_seq` (`passwordSeqRename`); 4 ties `ledger_events`' `seq`, `id` and `stream`
    /// to the line (`lineGuard`).
    public static let version = 4
    /// The key table.
    public static let keysTable = "ledger_keys"
    /// The table of the store's versions.
    public static let storeTable = "ledger_store"
    /// The constraint that refuses personal data in clear in a version 2 store.
    public static let sealedCheck = "ledger_events_personal_data_sealed"

    /// The idempotent DDL of the key and version tables.
    static let dataVersionStatements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS ledger_keys (
            subject text PRIMARY KEY,
            erased boolean NOT NULL DEFAULT false,
            key bytea,
            CONSTRAINT ledger_keys_erased_has_no_key CHECK (erased = (key IS NULL)),
            CONSTRAINT ledger_keys_size CHECK (key IS NULL OR octet_length(key) = 32)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS ledger_store (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            schema_version integer NOT NULL,
            data_version integer NOT NULL CHECK (data_version IN (1, 2))
        )
        """,
    ]

    /// Schema 3: `ledger_accounts.created_seq` is renamed `password_seq`, what it holds (the line of
    /// the account's password hash, its `AccountCreated` or last `PasswordChanged`). Idempotent; a
    /// rename touches no row. A build of schema 2 reads the column by its old name, so it must not
    /// see it renamed: the rename comes with `schema_version` 3, which such a build refuses.
    static let passwordSeqRename = """
        DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                       AND table_name = 'ledger_accounts' AND column_name = 'created_seq') THEN
                ALTER TABLE ledger_accounts RENAME COLUMN created_seq TO password_seq;
            END IF;
        END $$
        """

    /// Makes the row of `ledger_store` when there is none (run under the append lock): data version
    /// 2 for a store without lines, else 1; an older schema version is raised to this build's.
    static let storeRowStatement = """
        INSERT INTO ledger_store (schema_version, data_version)
        SELECT \(version), CASE WHEN EXISTS (SELECT 1 FROM ledger_events) THEN 1 ELSE 2 END
        ON CONFLICT (one) DO UPDATE SET schema_version = greatest(ledger_store.schema_version, excluded.schema_version)
        """

    /// The body of `sealedCheck`, from the one table of personal members: a line of a type with
    /// personal members that holds one as a string is data version 2.
    static var sealedCheckBody: String {
        let clauses = EventType.allCases.compactMap { type -> String? in
            guard let rule = PersonalMembers.rule(for: type) else { return nil }
            let members = rule.members.map { "jsonb_typeof(data -> '\($0)') = 'string'" }.joined(separator: " OR ")
            return "(type = '\(type.rawValue)' AND (\(members)))"
        }
        return "v >= 2 OR NOT coalesce(\(clauses.joined(separator: " OR ")), false)"
    }

    /// Adds `sealedCheck` (not validated: the lines already there are version 2's, or it is not added).
    static var addSealedCheck: String {
        "ALTER TABLE ledger_events ADD CONSTRAINT \(sealedCheck) CHECK (\(sealedCheckBody)) NOT VALID"
    }

    /// Drops `sealedCheck` (a store made empty and then given a version 1 log by `ledger import`).
    static let dropSealedCheck = "ALTER TABLE ledger_events DROP CONSTRAINT IF EXISTS \(sealedCheck)"

    /// True when `sealedCheck` is on `ledger_events`.
    static let hasSealedCheck = "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = '\(sealedCheck)' AND conrelid = 'ledger_events'::regclass)"
}
