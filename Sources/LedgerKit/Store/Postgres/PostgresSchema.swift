// MARK: - PostgresSchema

/// The tables of the PostgreSQL store. `ledger init --store URL` creates them; running it again changes nothing.
///
/// `ledger_events` is the whole envelope plus the verbatim line: `line` is the source of truth
/// (jsonb normalises key order, whitespace and numbers, so `data` alone could not reproduce the
/// hashed bytes); the other columns make the rules constraints: `seq` is the primary key, `id` is
/// unique, `(stream, stream_position)` is unique, so a lost position, a duplicated id or two
/// appends at one stream version are impossible, not merely unlikely.
public enum PostgresSchema {
    /// The events table.
    public static let eventsTable = "ledger_events"
    /// The channel `NOTIFY` is sent on in every append transaction (payload: the new head seq).
    public static let channel = "ledger_events"
    /// The `pg_advisory_xact_lock` key every append and import serializes on ('ledger' + 1).
    public static let appendLockKey = "7306916373939896321"

    /// The idempotent DDL of the events and notes tables, one statement per element.
    public static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS ledger_events (
            seq bigint PRIMARY KEY CHECK (seq >= 1),
            id uuid NOT NULL UNIQUE,
            at timestamptz NOT NULL,
            type text NOT NULL,
            v integer NOT NULL CHECK (v >= 1),
            stream text NOT NULL,
            stream_position integer NOT NULL CHECK (stream_position >= 1),
            data jsonb NOT NULL,
            prev char(64) NOT NULL,
            hash char(64) NOT NULL,
            line text NOT NULL,
            CONSTRAINT ledger_events_stream_position UNIQUE (stream, stream_position)
        )
        """,
        // Indexes that served SQL restating the account rules, now answered by the account-state tables.
        "DROP INDEX IF EXISTS ledger_events_account_email",
        "DROP INDEX IF EXISTS ledger_events_account_deleted",
        "DROP INDEX IF EXISTS ledger_events_account_uid",
        "DROP INDEX IF EXISTS ledger_events_profile_uid",
        "DROP INDEX IF EXISTS ledger_events_session_uid",
        "DROP INDEX IF EXISTS ledger_events_signin_email",
        // Images noted by running registrations, so `recover` on any host leaves their blobs alone.
        """
        CREATE TABLE IF NOT EXISTS ledger_registration_notes (
            registration uuid PRIMARY KEY,
            image text NOT NULL
        )
        """,
        pendingCheckStatement,
        pendingCheckOutcomeColumn,
        dropLegacyStatusCheck,
    ] + checkpointTable + treeTable

    /// The table of the views checkpoint the store keeps (`ledger_checkpoints`): the views and id
    /// fingerprints after the line `seq`/`hash` (`CheckpointWriter`'s bytes in `body`, their SHA-256
    /// hex in `seal`), written by whichever host read far enough past the last one, only the newest
    /// kept. A cache, as `events.jsonl.checkpoint` is: a read trusts it when it is sealed and the log
    /// holds its line; `ledger verify` folds the log up to that line and reports one that disagrees.
    static let checkpointTable = [
        "CREATE TABLE IF NOT EXISTS ledger_checkpoints (seq bigint PRIMARY KEY CHECK (seq >= 1), hash char(64) NOT NULL, seal char(64) NOT NULL, body bytea NOT NULL)",
        // Stored as it is: compressing tens of megabytes on every save would cost more than it saves.
        "ALTER TABLE ledger_checkpoints ALTER COLUMN body SET STORAGE EXTERNAL",
    ]

    /// The Merkle tree's state (`ledger_tree`): the hash of every complete subtree of the RFC 9162 tree
    /// over the lines, by its post-order position (`MerkleNodeIndex`), written by `ledger head` and
    /// `ledger prove` as they extend it. A cache, as `events.jsonl.tree` is: checked against the line it
    /// covers before use, compared hash for hash with the log by `ledger verify`.
    static let treeTable = [
        "CREATE TABLE IF NOT EXISTS ledger_tree (pos bigint PRIMARY KEY CHECK (pos >= 0), hash bytea NOT NULL CHECK (length(hash) = 32))",
    ]

    /// The CHECK older versions put on `ledger_accounts.status`, listing the statuses they knew: a
    /// status added since (`disabled`) would break it. `ledger init` drops it; an append or catch-up
    /// that meets it drops it once and runs again (`PostgresEventStore.droppingLegacyStatusCheck`),
    /// so no append pays a DDL statement.
    static let legacyStatusCheck = "ledger_accounts_status_check"

    /// Drops `legacyStatusCheck`; nothing when the table or the constraint is absent.
    static let dropLegacyStatusCheck = "ALTER TABLE IF EXISTS ledger_accounts DROP CONSTRAINT IF EXISTS \(legacyStatusCheck)"

    /// The pending password checks (`PostgresSignInLocks`), by the SHA-256 hex of the email: a row is
    /// committed before a check runs and deleted once its outcome is appended.
    public static let pendingCheckStatement = """
        CREATE TABLE IF NOT EXISTS ledger_signin_pending (
            email_key text PRIMARY KEY,
            attempt uuid NOT NULL,
            session uuid NOT NULL,
            outcome text
        )
        """

    /// The pending check's `outcome` (`<uid>:<version>` of an account command, `PendingCheck.account`),
    /// added to a table made before it.
    public static let pendingCheckOutcomeColumn = "ALTER TABLE ledger_signin_pending ADD COLUMN IF NOT EXISTS outcome text"

    /// The account-state tables, the account fold's state (`PostgresAccounts`) as of the line
    /// `ledger_account_state` names: a cache of the log, written in each append's transaction.
    /// - `ledger_accounts`, by uid: the account's status (an `AccountStatus` raw value: the fold
    ///   decides which, so no constraint restates them; one this build does not know makes the
    ///   tables disagree with the log), the email it holds (was last created with or changed to),
    ///   and in `password_seq` the seq of the line holding its password hash: its `AccountCreated`,
    ///   or its last `PasswordChanged` (named `created_seq` before schema 3: `PostgresSchema.passwordSeqRename`);
    /// - `ledger_account_emails`, by email: the uid of the account last created with it or moved to it;
    /// - `ledger_signin_failures`, by email: the times (ms) of its last consecutive wrong passwords, oldest first;
    /// - `ledger_account_state`, one row: the seq and hash of the last line folded into the others.
    public static let accountStatements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS ledger_accounts (
            uid uuid PRIMARY KEY,
            status text NOT NULL,
            email text NOT NULL,
            password_seq bigint NOT NULL
        )
        """,
        "CREATE TABLE IF NOT EXISTS ledger_account_emails (email text PRIMARY KEY, last_uid uuid NOT NULL)",
        "CREATE TABLE IF NOT EXISTS ledger_signin_failures (email text PRIMARY KEY, times bigint[] NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS ledger_account_state (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            seq bigint NOT NULL,
            hash text NOT NULL
        )
        """,
    ]

    /// The account-state tables, for messages and checks.
    static let accountTables = ["ledger_accounts", "ledger_account_emails", "ledger_signin_failures", "ledger_account_state"]
}
