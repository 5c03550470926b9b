// MARK: - PostgresSchema: the rows are the lines, and none goes from the middle (schema 4)

/// Schema 4 puts two constraints on `ledger_events` that keep what appends decide on true of the
/// lines themselves:
/// - `lineGuard`, a `CHECK`: the row's `seq`, `id` and `stream` (the head, whether an id is taken,
///   a stream's version and its lines) are the members of its own `line`. Without it, someone who
///   can write the table could move a stream's rows out by their column alone: a retry would then
///   look new to the version check.
/// - `priorLineGuard`, a foreign key from each row's `prior_seq` (generated: its `seq` minus 1,
///   none for line 1) to the row before it: a row that has one after it cannot be deleted. Without
///   it, a stream's rows could be deleted, a retry appended to as new, and the rows put back.
///   Only the last rows can go (the log's tail: what `verify` reports as lines lost).
///
/// Only an owner of the table can drop or change them; writers then refuse the store
/// (`PostgresEventStore.appendOnce`) and `ledger verify --store` reports it, until `ledger init`
/// adds them back. Each is compared with its definition, not only found by name.
///
/// The migration adds the column (rewriting the table once) and both constraints `NOT VALID`,
/// raises the schema version, and then validates them in statements of their own, which read every
/// row while appends and reads go on. Writers append only once both are validated: a row edited or
/// deleted before the migration fails the validation, and the store is refused as damaged until it
/// is put back. `stream_position` is not in the line; a stream whose positions do not run 1, 2, …
/// is refused by the append's version read instead.
extension PostgresSchema {
    /// The `CHECK` that a row's `seq`, `id` and `stream` are its line's.
    public static let lineGuard = "ledger_events_columns_are_the_line"
    /// The foreign key from each row to the one before it.
    public static let priorLineGuard = "ledger_events_prior_line"

    /// The check's body: the line, parsed once, holds `seq`, `id` and `stream` as the columns do
    /// (`id` in its lowercase text form, as ledger writes it and `verify` compares it).
    static let lineGuardBody = "line::jsonb @> jsonb_build_object('seq', seq, 'id', id::text, 'stream', stream)"

    /// The generated column the foreign key goes from, made anew (one there may be defined
    /// otherwise; dropping it drops the foreign key too); adding it rewrites the table.
    static let addPriorSeq = [
        "ALTER TABLE ledger_events DROP COLUMN IF EXISTS prior_seq CASCADE",
        "ALTER TABLE ledger_events ADD COLUMN prior_seq bigint GENERATED ALWAYS AS (nullif(seq - 1, 0)) STORED",
    ]

    /// Adds both constraints without reading the rows already there (after dropping whichever is
    /// there under its name but not as defined here).
    static let addLineGuards = [
        "ALTER TABLE ledger_events DROP CONSTRAINT IF EXISTS \(lineGuard)",
        "ALTER TABLE ledger_events DROP CONSTRAINT IF EXISTS \(priorLineGuard)",
        "ALTER TABLE ledger_events ADD CONSTRAINT \(lineGuard) CHECK (\(lineGuardBody)) NOT VALID",
        "ALTER TABLE ledger_events ADD CONSTRAINT \(priorLineGuard) FOREIGN KEY (prior_seq) REFERENCES ledger_events (seq) NOT VALID",
    ]

    /// Validates both: reads every row; refused by the server, naming the constraint, when a row
    /// disagrees with its line or the row before one is missing.
    static let validateLineGuards = [
        "ALTER TABLE ledger_events VALIDATE CONSTRAINT \(lineGuard)",
        "ALTER TABLE ledger_events VALIDATE CONSTRAINT \(priorLineGuard)",
    ]

    /// The definitions the server gives back (`pg_get_constraintdef`, the generated column's
    /// expression), without whitespace and parentheses, whose spelling varies between versions.
    /// (Quotes doubled: these are SQL string literals.)
    private static let lineGuardDefinition = "CHECKline::jsonb@>jsonb_build_object''seq'',seq,''id'',id::text,''stream'',stream"
    private static let priorLineGuardDefinition = "FOREIGNKEYprior_seqREFERENCESledger_eventsseq"
    private static let priorSeqExpression = "NULLIFseq-1,0"

    /// `text` without a trailing `NOT VALID`, whitespace and parentheses, in SQL.
    private static func bare(_ text: String) -> String {
        "regexp_replace(regexp_replace(\(text), '\\s+NOT VALID$', ''), '[[:space:]()]', '', 'g')"
    }

    /// How many hooks `ledger_events` has that could change, drop, send elsewhere or hide a row after
    /// the checks, with the count of rows an `INSERT` reports kept right: triggers and rules of its
    /// own (an `AFTER` trigger that deletes, a rule that inserts elsewhere), the foreign key's
    /// triggers disabled (then rows go from the middle), row-level security (then rows ledger wrote
    /// can be hidden from the role that reads them).
    static let ownHooks = """
        ((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'ledger_events'::regclass AND (NOT tgisinternal OR tgenabled = 'D'))
         + (SELECT count(*) FROM pg_rewrite WHERE ev_class = 'ledger_events'::regclass)
         + (SELECT count(*) FROM pg_class WHERE oid = 'ledger_events'::regclass AND (relrowsecurity OR relforcerowsecurity)))
        """

    /// A subquery giving where the guards stand (`LineGuardState`'s raw value): `hooked` when the
    /// table has triggers or rules of its own (`ownHooks`), `valid` when both guards are there as
    /// defined here and validated, `added` when both are there and one is not validated yet, NULL
    /// otherwise (not migrated yet, or one dropped or changed).
    static let lineGuardQuery = """
        (SELECT CASE WHEN \(ownHooks) > 0 THEN 'hooked'
                     WHEN count(*) FILTER (WHERE shaped) < 2 OR NOT bool_or(generated) THEN NULL
                     WHEN bool_and(convalidated) FILTER (WHERE shaped) THEN 'valid' ELSE 'added' END
         FROM (SELECT c.convalidated,
                      (c.conname = '\(lineGuard)' AND \(bare("pg_get_constraintdef(c.oid)")) = '\(lineGuardDefinition)')
                      OR (c.conname = '\(priorLineGuard)' AND \(bare("pg_get_constraintdef(c.oid)")) = '\(priorLineGuardDefinition)') AS shaped,
                      EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                              WHERE a.attrelid = 'ledger_events'::regclass AND a.attname = 'prior_seq' AND a.attgenerated = 's'
                                AND \(bare("pg_get_expr(d.adbin, d.adrelid)")) = '\(priorSeqExpression)') AS generated
               FROM pg_constraint c
               WHERE c.conrelid = 'ledger_events'::regclass AND c.conname IN ('\(lineGuard)', '\(priorLineGuard)')) AS guards)
        """

    /// Puts PostgreSQL's own functions and operators before any schema's for the rest of the
    /// transaction: the server prints a definition's operator or function without its schema when
    /// the search path finds it first, so a role whose search path names `pg_catalog` last could
    /// have another schema's `@>` or `-` printed as PostgreSQL's. Run before `lineGuardQuery`.
    static let catalogFirst = "SELECT set_config('search_path', 'pg_catalog, ' || current_setting('search_path'), true)"

    /// A subquery giving what identifies the guards as they are now without reading their
    /// definitions (a tenth of `lineGuardQuery`'s cost, read by every append): each one's oid, which
    /// a constraint made again under its name does not keep, and what `ALTER CONSTRAINT` can change
    /// without a new oid (validated, deferrable, deferred, its actions), and the generated column's
    /// default's oid. NULL when neither constraint is there.
    static let lineGuardFingerprint = """
        (SELECT string_agg(concat_ws(':', c.conname, c.oid, c.convalidated, c.condeferrable, c.condeferred,
                                     c.confupdtype::text, c.confdeltype::text, c.confmatchtype::text), ',' ORDER BY c.conname)
                || ';' || coalesce((SELECT d.oid::text FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                                    WHERE a.attrelid = 'ledger_events'::regclass AND a.attname = 'prior_seq' AND a.attgenerated = 's'), '')
         FROM pg_constraint c WHERE c.conrelid = 'ledger_events'::regclass AND c.conname IN ('\(lineGuard)', '\(priorLineGuard)'))
        || ';' || \(ownHooks)
        """
}

/// Where the guards of `PostgresSchema+LineGuard` stand on a store.
enum LineGuardState: String {
    /// Not both on `ledger_events` as defined: a store not migrated to schema 4, or one whose
    /// constraint was dropped or changed.
    case absent
    /// Both added, one not validated yet: rows from before it were not read.
    case added
    /// Both added and validated: every row's columns say what its line does, and every row but the
    /// first has the one before it.
    case valid
    /// The table has triggers or rules of its own (`PostgresSchema.ownHooks`), whatever the guards.
    case hooked
}
