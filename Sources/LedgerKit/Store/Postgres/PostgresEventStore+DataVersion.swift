import LedgerDomain

// MARK: - PostgresEventStore: the store's versions

extension PostgresEventStore {
    /// What `ledger_store` says.
    struct StoreVersions: Equatable {
        /// The version of the tables (`PostgresSchema.version` when this build made them).
        var schema: Int
        /// The log's data version: 2 seals personal members, 1 writes them in clear.
        var data: Int
        /// What identifies the guards of `PostgresSchema+LineGuard` as they are now
        /// (`PostgresSchema.lineGuardFingerprint`); nil when they are not there.
        var guardFingerprint: String?
        /// Where the guards stand, when read with their definitions (`storeVersionsAndGuardsQuery`).
        var guards: LineGuardState?
    }

    /// The reason of the `store-unavailable` error for a store a newer build migrated.
    public static let newerSchema = "newer-schema"

    /// The statement that reads `ledger_store` (no row before the migration).
    static let storeVersionsQuery = "SELECT schema_version, data_version, \(PostgresSchema.lineGuardFingerprint) FROM ledger_store"

    /// `storeVersionsQuery` with where the guards stand, read with their definitions, after it.
    static let storeVersionsAndGuardsQuery =
        "SELECT schema_version, data_version, \(PostgresSchema.lineGuardFingerprint), \(PostgresSchema.lineGuardQuery) FROM ledger_store"

    /// The versions `storeVersionsQuery` (`withGuards`: `storeVersionsAndGuardsQuery`) returned, checked: nil without a row; a schema newer than
    /// this build's is refused (`store-unavailable`, reason `newer-schema`): its lines could be misread.
    static func storeVersions(from result: PostgresResult, withGuards: Bool = false) throws -> StoreVersions? {
        guard result.count == 1, let schema = result.int(0, 0), let data = result.int(0, 1) else { return nil }
        try refuseNewer(schema: schema, data: data)
        let guards = withGuards ? result.string(0, 3).flatMap(LineGuardState.init(rawValue:)) ?? .absent : nil
        return StoreVersions(schema: schema, data: data, guardFingerprint: result.string(0, 2), guards: guards)
    }

    /// Throws `store-unavailable`, reason `newer-schema`, for versions a newer build wrote: this
    /// build could misread the store's lines and tables, so it neither reads nor writes them. A
    /// version below 1, which no build writes, is refused the same way.
    static func refuseNewer(schema: Int, data: Int) throws {
        guard schema <= PostgresSchema.version, data <= 2 else {
            throw StoreError(.unavailable, "this PostgreSQL store was migrated to schema \(schema), data version \(data), by a newer ledger; "
                             + "this build knows schema \(PostgresSchema.version) and data versions 1 and 2: upgrade ledger on this host "
                             + "before it reads or writes the store", reason: newerSchema)
        }
        guard schema >= 1, data >= 1 else { throw unreadableVersions("schema \(schema), data version \(data)") }
    }

    /// The refusal of a `ledger_store` this build cannot read its versions from: what a newer build
    /// or a hand left there (ledger keeps one row of two whole numbers from 1).
    static func unreadableVersions(_ found: String) -> StoreError {
        StoreError(.unavailable, "ledger_store holds \(found), not the one row of two whole versions ledger keeps there: a newer ledger "
                   + "or a hand wrote it, and this build neither reads nor writes the store; upgrade ledger on this host, or put the row back",
                   reason: newerSchema)
    }

    /// Refuses, on a new connection to the store, a store a newer build migrated (`refuseNewer`),
    /// before anything reads or writes it: reads as well as appends. A database without
    /// `ledger_store`, or with no row in it yet, predates the versions and passes; a table without
    /// the columns, a second row or a version that is not a whole number is refused.
    static func refuseNewerStore(_ connection: PostgresConnection) throws {
        let result: PostgresResult
        do {
            result = try connection.execute("SELECT schema_version::text, data_version::text FROM ledger_store LIMIT 2")
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return  // no such table yet: a store older than the versions
        } catch let error as PostgresError where error.sqlState == "42703" {
            throw unreadableVersions("no schema_version or data_version column")
        } catch let error as PostgresError where !error.connectionLost {
            throw StoreError(.io, "PostgreSQL refused reading the store's versions (ledger_store): \(error.message)", reason: StoreError.serverRefused)
        }
        guard result.count > 0 else { return }
        guard result.count == 1, let schema = result.int(0, 0), let data = result.int(0, 1) else {
            throw unreadableVersions(result.count > 1 ? "more than one row"
                                     : "schema \(result.string(0, 0) ?? "NULL"), data version \(result.string(0, 1) ?? "NULL")")
        }
        try refuseNewer(schema: schema, data: data)
    }

    /// Applies the migrations of data version 2 and schemas 3 and 4 in a transaction of its own, under
    /// the append lock: the key and version tables, the row that fixes the data version (2 for a store
    /// without lines), the password line's column under its schema 3 name, the constraint that ties
    /// the columns appends decide on to the line (`PostgresSchema.lineGuard`, schema 4), the schema
    /// version raised to this build's, and in a version 2 store the constraint that refuses personal
    /// members in clear. Idempotent.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgresSchema.appendLockKey])
            // The tables an erasure writes, with the key and version tables.
            for statement in [PostgresSchema.pendingCheckStatement, PostgresSchema.pendingCheckOutcomeColumn]
                + PostgresSchema.checkpointTable + PostgresSchema.dataVersionStatements + [PostgresSchema.passwordSeqRename] {
                try connection.execute(statement)
            }
            if try lineGuardState(connection, inTransaction: true).state == .absent {
                for statement in PostgresSchema.addPriorSeq + PostgresSchema.addLineGuards { try connection.execute(statement) }
            }
            try connection.execute(PostgresSchema.storeRowStatement)
            let versions = try storeVersions(from: try connection.execute(storeVersionsQuery))
            if versions?.data == 2, try connection.execute(PostgresSchema.hasSealedCheck).string(0, 0) != "t" {
                try connection.execute(PostgresSchema.addSealedCheck)
            }
        }
        try validateLineGuard(connection)
    }

    /// Validates the guards of `PostgresSchema+LineGuard` when they are not yet (outside the
    /// migration's transaction: it reads every row, and appends and reads go on meanwhile). A row
    /// whose columns disagree with its line, or a row missing before another, is `damaged`: writers
    /// refuse the store until it is put back.
    static func validateLineGuard(_ connection: PostgresConnection) throws {
        guard try lineGuardState(connection).state == .added else { return }
        do {
            for statement in PostgresSchema.validateLineGuards { try connection.execute(statement) }
        } catch let error as PostgresError where error.sqlState == "23514" || error.sqlState == "23503" || error.sqlState.hasPrefix("22") {
            throw StoreError(.damaged, "\(PostgresSchema.eventsTable) holds a row whose seq, id or stream column is not what its line says, "
                             + "a line that is not JSON, or a row missing before another (\(error.message)): writers refuse the store; "
                             + "`ledger verify --store URL` names the line")
        }
    }

    /// Migrates a store not of schema 4 yet, or validates guards (`PostgresSchema+LineGuard`) not
    /// validated yet; throws `unguarded` for a store of schema 4 that lost one. What an import
    /// checks before it inserts (appends check it in their reads).
    static func requireLineGuards(_ connection: PostgresConnection) throws {
        let versions = try storeVersions(from: try connection.execute(storeVersionsQuery))
        var state = try lineGuardState(connection).state
        if versions.map({ $0.schema < 4 }) ?? true || state == .added {
            try migrate(connection)
            state = try lineGuardState(connection).state
        }
        guard state == .valid else { throw state == .hooked ? hooked : unguarded }
    }

    /// Where the guards stand, read with their definitions, and what identifies them as they are.
    /// Within a transaction (`inTransaction`, else in one of its own), whose search path it puts
    /// `pg_catalog` first in (`PostgresSchema.catalogFirst`).
    static func lineGuardState(_ connection: PostgresConnection, inTransaction: Bool = false) throws -> (state: LineGuardState, fingerprint: String?) {
        guard inTransaction else { return try connection.transaction { try lineGuardState(connection, inTransaction: true) } }
        try connection.execute(PostgresSchema.catalogFirst)
        let result = try connection.execute("SELECT \(PostgresSchema.lineGuardQuery), \(PostgresSchema.lineGuardFingerprint)")
        return (result.string(0, 0).flatMap(LineGuardState.init(rawValue:)) ?? .absent, result.string(0, 1))
    }

    /// Where the guards stand for an append that read `versions`: `valid` when they are as this store
    /// last found them valid by their definitions (`validGuards`); else as `versions` read them with
    /// their definitions (`storeVersionsAndGuardsQuery`, which an append asks for when it has no
    /// such memory), or as a statement of its own reads them.
    func lineGuardState(_ versions: StoreVersions, _ connection: PostgresConnection) throws -> LineGuardState {
        if let known = validGuards, versions.guardFingerprint == known { return .valid }
        let (state, fingerprint) = try versions.guards.map { ($0, versions.guardFingerprint) } ?? Self.lineGuardState(connection, inTransaction: true)
        validGuards = state == .valid ? fingerprint : nil
        return state
    }

    /// Sets the data version of a store that held no line before an import (under the append lock,
    /// in the import's transaction): the imported log's, with the constraint that goes with it.
    static func setDataVersion(_ version: Int, _ connection: PostgresConnection) throws {
        try connection.execute("UPDATE ledger_store SET data_version = $1::integer", [String(version)])
        let has = try connection.execute(PostgresSchema.hasSealedCheck).string(0, 0) == "t"
        if version >= 2 && !has { try connection.execute(PostgresSchema.addSealedCheck) }
        if version < 2 && has { try connection.execute(PostgresSchema.dropSealedCheck) }
    }

    /// True when the events table exists and `ledger_store` or `ledger_keys` does not (a store
    /// from before data version 2, not migrated yet).
    static func lacksDataVersionTables(_ connection: PostgresConnection) throws -> Bool {
        let result = try connection.execute(
            "SELECT to_regclass('ledger_events') IS NOT NULL, to_regclass('ledger_store') IS NOT NULL, to_regclass('ledger_keys') IS NOT NULL")
        return result.string(0, 0) == "t" && (result.string(0, 1) != "t" || result.string(0, 2) != "t")
    }

    /// The data version appends write (`PersonalDataKeys`): `ledger_store`'s, 2 for a store not
    /// migrated yet that holds no line (its first append migrates it), 1 when it cannot be read.
    public var dataVersion: Int { (try? checkedDataVersion()) ?? 1 }

    /// `dataVersion`, with what keeps it from being read thrown: a store that cannot be reached,
    /// one a newer build migrated, a read the server refuses.
    public func checkedDataVersion() throws -> Int {
        let connection = try connection()
        do {
            let result: PostgresResult
            do {
                result = try connection.execute(Self.storeVersionsQuery)
            } catch where Self.isMissingTable(error) {
                return try Self.head(connection).head.seq == 0 ? 2 : 1
            }
            return try Self.storeVersions(from: result)?.data ?? 1
        } catch {
            throw storeError(error, during: "reading the store's data version")
        }
    }
}
