import LedgerDomain

// MARK: - PostgresRegistrationLocks

/// Registration locks shared by every host of a PostgreSQL store: a session-level
/// `pg_try_advisory_lock` keyed by the registration id, held by this process's own connection.
/// The server releases it when the connection ends (the process died, or its host is cut off), so
/// `recover` on any host can tell running from dead. Image notes live in `ledger_registration_notes`.
public final class PostgresRegistrationLocks: RegistrationLocks {
    /// The server.
    public var url: PostgresURL { lockConnection.url }
    private let lockConnection: PostgresLockConnection

    /// Locks in the database at `url` (connected on first use, on a connection of their own).
    public init(url: PostgresURL) { lockConnection = PostgresLockConnection(url: url) }

    private func connection() throws -> PostgresConnection { try lockConnection.get() }

    /// The advisory lock key of a registration: the first 64 bits of SHA-256 of its id (so ids that
    /// share a prefix, e.g. name-based UUIDs, still get distinct keys).
    static func key(_ registration: String) -> (signed: String, high: String, low: String) {
        let hex = SHA256.hex(Array("ledger-registration:\(registration)".utf8)).prefix(16)
        let bits = UInt64(hex, radix: 16) ?? 0
        return (String(Int64(bitPattern: bits)), String(bits >> 32), String(bits & 0xFFFF_FFFF))
    }

    /// `pg_try_advisory_lock` on this process's connection.
    public func acquire(_ registration: String) throws -> (any HeldRegistrationLock)? {
        let connection = try connection()
        do {
            let got = try connection.execute("SELECT pg_try_advisory_lock($1::bigint)", [Self.key(registration).signed]).string(0, 0) == "t"
            return got ? Held(owner: self, connection: connection, registration: registration) : nil
        } catch {
            throw StoreError(.unavailable, "cannot take the registration lock: \(error)")
        }
    }

    /// True when some connection holds the lock (looked up in `pg_locks`, without taking it).
    public func isHeld(_ registration: String) -> Bool {
        let key = Self.key(registration)
        let held = try? connection().execute("""
            SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid = $1::oid AND objid = $2::oid
            """, [key.high, key.low])
        return (held?.count ?? 0) > 0
    }

    /// The images noted by registrations whose lock is held.
    public func imagesOfRunningRegistrations() -> Set<String> {
        guard let notes = try? connection().execute("SELECT registration, image FROM ledger_registration_notes") else { return [] }
        var out = Set<String>()
        for row in 0..<notes.count {
            if let registration = notes.string(row, 0), let image = notes.string(row, 1), isHeld(registration) { out.insert(image) }
        }
        return out
    }

    /// Deletes the notes of registrations whose lock nobody holds.
    public func removeStale(unfinished: (String) -> Bool) {
        guard let notes = try? connection().execute("SELECT registration FROM ledger_registration_notes") else { return }
        for row in 0..<notes.count {
            guard let registration = notes.string(row, 0), !unfinished(registration), !isHeld(registration) else { continue }
            _ = try? connection().execute("DELETE FROM ledger_registration_notes WHERE registration = $1::uuid", [registration])
        }
    }

    private final class Held: HeldRegistrationLock {
        let owner: PostgresRegistrationLocks
        let connection: PostgresConnection
        let registration: String

        init(owner: PostgresRegistrationLocks, connection: PostgresConnection, registration: String) {
            self.owner = owner; self.connection = connection; self.registration = registration
        }

        func noteImage(_ imageName: String) throws {
            do {
                try connection.execute("""
                    INSERT INTO ledger_registration_notes (registration, image) VALUES ($1::uuid, $2)
                    ON CONFLICT (registration) DO UPDATE SET image = excluded.image
                    """, [registration, imageName])
            } catch {
                throw StoreError(.unavailable, "cannot note the registration's image: \(error)")
            }
        }

        /// Deletes the note and unlocks in one statement; the unlock alone when that fails.
        func release() {
            let key = PostgresRegistrationLocks.key(registration).signed
            let released = try? connection.execute("""
                WITH note AS (DELETE FROM ledger_registration_notes WHERE registration = $1::uuid)
                SELECT pg_advisory_unlock($2::bigint)
                """, [registration, key])
            if released == nil { _ = try? connection.execute("SELECT pg_advisory_unlock($1::bigint)", [key]) }
        }
    }
}
