import LedgerDomain

// MARK: - PostgresSignInLocks

/// Sign-in locks shared by every host of a PostgreSQL store: a session-level `pg_advisory_lock`
/// keyed by the email's hash, held by this process's own connection (the server releases it when
/// the connection ends). Its keys are two `int4`s, a key space of their own: registration and
/// append locks take one `bigint`, so no email can share a lock with them. The pending-check marker
/// is a row of `ledger_signin_pending`, committed on the lock's connection before the check and
/// deleted once its outcome is appended; a row left behind is what the next holder, on any host, finds.
public final class PostgresSignInLocks: SignInLocks {
    /// The server.
    public var url: PostgresURL { lockConnection.url }
    private let lockConnection: PostgresLockConnection

    /// Locks in the database at `url` (connected on first use, on a connection of their own).
    public init(url: PostgresURL) { lockConnection = PostgresLockConnection(url: url) }

    private func connection() throws -> PostgresConnection { try lockConnection.get() }

    /// The advisory lock key of `email`: the first 64 bits of its SHA-256, as two signed 32-bit halves.
    static func key(_ email: String) -> [String?] {
        let bits = UInt64(SHA256.hex(Array(email.utf8)).prefix(16), radix: 16) ?? 0
        return [String(Int32(bitPattern: UInt32(truncatingIfNeeded: bits >> 32))),
                String(Int32(bitPattern: UInt32(truncatingIfNeeded: bits)))]
    }

    /// Drops the pending checks left under `emails` (keyed by their SHA-256): an erased address keeps
    /// nothing in `ledger_signin_pending`.
    public func forget(emails: [String]) throws {
        let keys = emails.filter { !$0.isEmpty }.map { SHA256.hex(Array($0.utf8)) }
        guard !keys.isEmpty else { return }
        do {
            try connection().execute("DELETE FROM ledger_signin_pending WHERE email_key = ANY($1::text[])", [PostgresAccounts.textArray(keys)])
        } catch {
            throw StoreError(.unavailable, "cannot drop the erased address's pending checks: \(error)")
        }
    }

    /// Waits for `pg_advisory_lock` on this process's connection, then reads the email's leftover
    /// pending check (creating its table in a database from before it).
    public func acquire(email: String) throws -> any HeldSignInLock {
        let connection = try connection()
        do {
            try connection.execute("SELECT pg_advisory_lock($1::int4, $2::int4)", Self.key(email))
        } catch {
            throw StoreError(.unavailable, "cannot take the sign-in lock: \(error)")
        }
        let held = Held(connection: connection, key: Self.key(email), emailKey: SHA256.hex(Array(email.utf8)))
        do {
            try held.readLeftover()
        } catch {
            held.release()
            throw StoreError(.unavailable, "cannot read the sign-in lock's pending check: \(error)")
        }
        return held
    }

    private final class Held: HeldSignInLock {
        let connection: PostgresConnection
        let key: [String?]
        let emailKey: String
        private(set) var leftover: PendingCheck?

        init(connection: PostgresConnection, key: [String?], emailKey: String) {
            self.connection = connection; self.key = key; self.emailKey = emailKey
        }

        func readLeftover() throws {
            let result: PostgresResult
            do {
                result = try connection.execute("SELECT attempt, session, outcome FROM ledger_signin_pending WHERE email_key = $1", [emailKey])
            } catch let error as PostgresError where error.sqlState == "42P01" {
                try connection.execute(PostgresSchema.pendingCheckStatement)
                return
            } catch let error as PostgresError where error.sqlState == "42703" {
                // A table from before the outcome column: add it, then read again.
                try connection.execute(PostgresSchema.pendingCheckOutcomeColumn)
                return try readLeftover()
            }
            if result.count == 1, let attempt = result.string(0, 0), let session = result.string(0, 1) {
                leftover = PendingCheck(attempt: attempt, sessionId: session, account: result.string(0, 2).flatMap(AccountVersion.init(text:)))
            }
        }

        func notePendingCheck(_ check: PendingCheck) throws {
            do {
                try connection.execute("""
                    INSERT INTO ledger_signin_pending (email_key, attempt, session, outcome) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (email_key) DO UPDATE SET attempt = EXCLUDED.attempt, session = EXCLUDED.session, outcome = EXCLUDED.outcome
                    """, [emailKey, check.attempt, check.sessionId, check.account?.text])
            } catch {
                throw StoreError(.unavailable, "cannot record the pending password check: \(error)")
            }
        }

        func clearPendingCheck() throws {
            do {
                try connection.execute("DELETE FROM ledger_signin_pending WHERE email_key = $1", [emailKey])
            } catch {
                throw StoreError(.unavailable, "cannot clear the pending password check: \(error)")
            }
        }

        func release() { _ = try? connection.execute("SELECT pg_advisory_unlock($1::int4, $2::int4)", key) }
    }
}
