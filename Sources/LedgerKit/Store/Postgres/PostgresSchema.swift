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

    /// The idempotent DDL, one statement per element.
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
        // Email uniqueness is asked of the server (`PostgresLookups`): accounts by email, deletions by uid.
        "CREATE INDEX IF NOT EXISTS ledger_events_account_email ON ledger_events ((data->>'email'), seq) WHERE type = 'AccountCreated'",
        "CREATE INDEX IF NOT EXISTS ledger_events_account_deleted ON ledger_events ((data->>'uid'), seq) WHERE type = 'AccountDeleted'",
        // A sign-in's questions (`PostgresEventStore.signInRecord`): an account's creations and profile by
        // uid, session starts by uid, refused sign-ins by email.
        "CREATE INDEX IF NOT EXISTS ledger_events_account_uid ON ledger_events ((data->>'uid'), seq) WHERE type = 'AccountCreated'",
        "CREATE INDEX IF NOT EXISTS ledger_events_profile_uid ON ledger_events ((data->>'uid'), seq) WHERE type = 'ProfileWritten'",
        "CREATE INDEX IF NOT EXISTS ledger_events_session_uid ON ledger_events ((data->>'uid'), seq) WHERE type = 'SessionStarted'",
        "CREATE INDEX IF NOT EXISTS ledger_events_signin_email ON ledger_events ((data->>'email'), seq) WHERE type = 'SignInFailed'",
        // Images noted by running registrations, so `recover` on any host leaves their blobs alone.
        """
        CREATE TABLE IF NOT EXISTS ledger_registration_notes (
            registration uuid PRIMARY KEY,
            image text NOT NULL
        )
        """,
    ]
}
