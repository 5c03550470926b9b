// MARK: - PostgresSchema: the columns an append decides on are the line's (schema 4)

/// Schema 4 puts a constraint on `ledger_events` (`lineGuard`) that keeps the three columns an
/// append decides on — `seq` (the head), `id` (whether an id is taken) and `stream` (a stream's
/// version and its lines) — equal to the members of the row's own `line`. Without it, someone who
/// can write the table could move a stream's rows out by their column alone, leaving the lines
/// intact: a retry would then look new to the version check. With it, such an edit is refused by
/// the server; only an owner of the table can drop it, and then writers refuse the store
/// (`PostgresEventStore.appendOnce`) and `ledger verify --store` reports it, until `ledger init`
/// adds it back.
///
/// The migration adds it `NOT VALID` (a short exclusive lock, no row read), raises the schema
/// version, and then validates it in a statement of its own, which reads every row while appends and
/// reads go on. Writers append only once it is validated: a row edited before the migration fails
/// the validation, and the store is refused as damaged until the row says what its line does.
/// `stream_position` is not in the line; a stream whose positions do not run 1, 2, … is refused by
/// the append's version read instead.
extension PostgresSchema {
    /// The constraint's name.
    public static let lineGuard = "ledger_events_columns_are_the_line"

    /// The constraint's body: the line, parsed once, holds `seq`, `id` and `stream` as the columns
    /// do (`id` in its lowercase text form, as ledger writes it and `verify` compares it).
    static let lineGuardBody = "line::jsonb @> jsonb_build_object('seq', seq, 'id', id::text, 'stream', stream)"

    /// Adds `lineGuard` without reading the rows already there.
    static let addLineGuard = "ALTER TABLE ledger_events ADD CONSTRAINT \(lineGuard) CHECK (\(lineGuardBody)) NOT VALID"

    /// Validates `lineGuard`: reads every row; refused by the server, naming the constraint, when one
    /// disagrees with its line.
    static let validateLineGuard = "ALTER TABLE ledger_events VALIDATE CONSTRAINT \(lineGuard)"

    /// A subquery giving `lineGuard`'s state (`LineGuardState`'s raw value): `valid`, `added` (not
    /// validated yet), or NULL when `ledger_events` does not have it.
    static let lineGuardQuery = """
        (SELECT CASE WHEN convalidated THEN 'valid' ELSE 'added' END FROM pg_constraint
         WHERE conname = '\(lineGuard)' AND conrelid = 'ledger_events'::regclass)
        """
}

/// Where `PostgresSchema.lineGuard` stands on a store.
enum LineGuardState: String {
    /// Not on `ledger_events`: a store not migrated to schema 4, or one whose constraint was dropped.
    case absent
    /// Added, not validated yet: rows from before it were not read.
    case added
    /// Added and validated: every row's columns say what its line does.
    case valid
}
