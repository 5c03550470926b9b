import LedgerDomain

// MARK: - PostgresSignInLocks

/// Sign-in locks shared by every host of a PostgreSQL store: a session-level `pg_advisory_lock`
/// keyed by the email's hash, held by this process's own connection (the server releases it when
/// the connection ends). Its keys are two `int4`s, a key space of their own: registration and
/// append locks take one `bigint`, so no email can share a lock with them.
public final class PostgresSignInLocks: SignInLocks {
    /// The server.
    public let url: PostgresURL
    private var open: PostgresConnection?

    /// Locks in the database at `url` (connected on first use, on a connection of their own).
    public init(url: PostgresURL) { self.url = url }

    private func connection() throws -> PostgresConnection {
        if let open, open.isOpen { return open }
        let made = try PostgresConnection.forStore(url)
        open = made
        return made
    }

    /// The advisory lock key of `email`: the first 64 bits of its SHA-256, as two signed 32-bit halves.
    static func key(_ email: String) -> [String?] {
        let bits = UInt64(SHA256.hex(Array(email.utf8)).prefix(16), radix: 16) ?? 0
        return [String(Int32(bitPattern: UInt32(truncatingIfNeeded: bits >> 32))),
                String(Int32(bitPattern: UInt32(truncatingIfNeeded: bits)))]
    }

    /// Waits for `pg_advisory_lock` on this process's connection.
    public func acquire(email: String) throws -> any HeldSignInLock {
        let connection = try connection()
        do {
            try connection.execute("SELECT pg_advisory_lock($1::int4, $2::int4)", Self.key(email))
            return Held(connection: connection, key: Self.key(email))
        } catch {
            throw StoreError(.unavailable, "cannot take the sign-in lock: \(error)")
        }
    }

    private final class Held: HeldSignInLock {
        let connection: PostgresConnection
        let key: [String?]

        init(connection: PostgresConnection, key: [String?]) { self.connection = connection; self.key = key }

        func release() { _ = try? connection.execute("SELECT pg_advisory_unlock($1::int4, $2::int4)", key) }
    }
}
