import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresStoreFailureTests

/// A connection dropped in the middle of an append: the whole batch is rolled back and the caller
/// gets one clear `StoreError`; the store reconnects for the next append.
struct PostgresStoreFailureTests {
    /// Holds what the appending thread saw.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Result<Int, StoreError>?
        func set(_ result: Result<Int, StoreError>) { lock.lock(); value = result; lock.unlock() }
        func get() -> Result<Int, StoreError>? { lock.lock(); defer { lock.unlock() }; return value }
    }

    @Test func connectionKilledAfterTheInsertsRollsTheWholeBatchBack() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            try store.createSchema()
            _ = try store.append([Fixtures.registration(1)], to: Fixtures.stream(.registration, 1), expected: .noStream)
            let before = try store.head()
            // A trigger that waits on advisory lock 4242 after the batch's rows are inserted, before COMMIT
            // (on the account-state mark the same transaction writes next: a trigger on
            // `ledger_events` itself would make writers refuse the store).
            let admin = try PostgresConnection(url)
            try admin.execute("""
                CREATE FUNCTION ledger_test_pause() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); RETURN NULL; END $$
                """)
            try admin.execute("CREATE TRIGGER ledger_test_pause AFTER INSERT OR UPDATE ON ledger_account_state FOR EACH STATEMENT EXECUTE FUNCTION ledger_test_pause()")
            try admin.execute("SELECT pg_advisory_lock(4242)")
            let outcome = Outcome()
            let text = url.text
            let thread = Thread {
                let appender = PostgresEventStore(url: PostgresURL(text)!, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
                let stream = Fixtures.stream(.registration, 2)
                do {
                    let recorded = try appender.append([Fixtures.registration(2), Fixtures.event(.imageStored, 2), Fixtures.event(.profileWritten, 2)],
                                                       to: stream, expected: .noStream)
                    outcome.set(.success(recorded.count))
                } catch let error as StoreError {
                    outcome.set(.failure(error))
                } catch {
                    outcome.set(.failure(StoreError(.io, "\(error)")))
                }
            }
            thread.start()
            // Wait until the appender is parked in the trigger (its rows inserted), then kill its connection.
            var pid: String?
            for _ in 0..<200 where pid == nil {
                let waiting = try admin.execute("""
                    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO ledger_account_state%'
                    """)
                pid = waiting.count > 0 ? waiting.string(0, 0) : nil
                if pid == nil { usleep(25_000) }
            }
            let backend = try #require(pid, "the append never reached its INSERT")
            try admin.execute("SELECT pg_terminate_backend($1::int)", [backend])
            try admin.execute("SELECT pg_advisory_unlock(4242)")
            for _ in 0..<400 where outcome.get() == nil { usleep(25_000) }
            let result = try #require(outcome.get())
            guard case .failure(let error) = result else {
                Issue.record("the append succeeded although its connection was killed before COMMIT")
                return
            }
            #expect(error.code == .unavailable)
            #expect(error.message.contains("nothing of it was stored"), "\(error.message)")
            #expect(!error.message.contains("\n"))
            // No half batch: the head and the events are as before.
            #expect(try store.head() == before)
            #expect(try store.readAll().count == 1)
            // The store reconnects: the same batch now appends whole.
            try admin.execute("DROP TRIGGER ledger_test_pause ON ledger_account_state")
            let again = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 11))
            let recorded = try again.append([Fixtures.registration(2), Fixtures.event(.imageStored, 2), Fixtures.event(.profileWritten, 2)],
                                            to: Fixtures.stream(.registration, 2), expected: .noStream)
            #expect(recorded.map(\.seq) == [2, 3, 4])
        }
    }

    @Test func anAppendAfterTheServerDroppedAnIdleConnectionReconnects() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            try store.createSchema()
            _ = try store.append([Fixtures.registration(1)], to: Fixtures.stream(.registration, 1), expected: .noStream)
            let admin = try PostgresConnection(url)
            let killed = try admin.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
            #expect(killed.count == 1)
            usleep(100_000)
            let recorded = try store.append([Fixtures.event(.failed, 1)], to: Fixtures.stream(.registration, 1), expected: .exactly(1))
            #expect(recorded.map(\.seq) == [2])
        }
    }

    /// A server that takes the connection and never answers: the attempt gives up after the URL's
    /// `connect_timeout` with one line naming the server, as libpq's blocking connect did.
    @Test func aSilentServerTimesOutAfterConnectTimeout() throws {
        try withSilentListener { port in
            let url = try #require(PostgresURL("postgres://u@127.0.0.1:\(port)/db?connect_timeout=2"))
            let started = Date()
            #expect {
                _ = try PostgresConnection(url)
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.connectionLost && !error.message.contains("\n")
                    && error.message.hasSuffix("connection to server at \"127.0.0.1\", port \(port) failed: timeout expired")
            }
            let took = Date().timeIntervalSince(started)
            #expect(took >= 1.5 && took < 8, "gave up after \(took) s")
        }
    }

    /// A `connect_timeout` libpq rejects is rejected with libpq's words, at once, never a trap or a wait.
    @Test(arguments: ["abc", "99999999999999999", "2x", "-"])
    func aBadConnectTimeoutIsRefused(_ value: String) throws {
        try withSilentListener { port in
            let url = try #require(PostgresURL("postgres://u@127.0.0.1:\(port)/db?connect_timeout=\(value)"))
            let started = Date()
            #expect {
                _ = try PostgresConnection(url)
            } throws: { error in
                (error as? PostgresError)?.message.contains("invalid integer value \"\(value)\" for connection option \"connect_timeout\"") == true
            }
            #expect(Date().timeIntervalSince(started) < 1.5)
        }
    }

    /// With several hosts, a silent first one is given up after `connect_timeout` and the next one
    /// is tried, as libpq's own connect does.
    @Test func aSilentFirstHostFallsBackToTheNextOne() throws {
        let server = try PostgresServer.get()
        try withSilentListener { port in
            let text = server.url.text
            guard let at = text.range(of: "@") else { Issue.record("no host in \(text)"); return }
            let hosts = text[at.upperBound...].prefix { $0 != "/" }
            let both = text.replacingOccurrences(of: "@" + hosts, with: "@127.0.0.1:\(port),\(hosts)")
                + (text.contains("?") ? "&" : "?") + "connect_timeout=2"
            let url = try #require(PostgresURL(both))
            let connection = try PostgresConnection(url)
            #expect(connection.isOpen)
            #expect(try connection.execute("SELECT 1").count == 1)
        }
    }

    @Test func passwordsAreRedactedInURLs() {
        #expect(PostgresURL("postgres://u:pw@h:5432/db")!.redacted == "postgres://u:***@h:5432/db")
        #expect(PostgresURL("postgresql://u@h/db?password=pw&sslmode=require")!.redacted == "postgresql://u@h/db?password=***&sslmode=require")
        #expect(PostgresURL("postgres://h/db")!.redacted == "postgres://h/db")
        #expect(PostgresURL("mysql://h/db") == nil)
        #expect(PostgresURL("postgres://u:pw@h:1/a?x=1")!.withDatabase("b").text == "postgres://u:pw@h:1/b?x=1")
    }
}

// MARK: - Recovery across hosts

/// `ledger recover` with a PostgreSQL store leaves a registration alone while another connection (a
/// process on another host, in effect) holds its advisory lock, and finishes it once that is gone.
struct PostgresRecoveryTests {
    @Test func recoverSkipsARegistrationRunningElsewhereAndFinishesItWhenItsProcessIsGone() throws {
        try withPostgresLedger { pg in
            let store = PostgresEventStore(url: pg.url)
            let registration = Fixtures.uuid(77)
            _ = try store.append([Fixtures.registration(77)], to: Fixtures.stream(.registration, 77), expected: .noStream)
            var running: PostgresRegistrationLocks? = PostgresRegistrationLocks(url: pg.url)
            var held: (any HeldRegistrationLock)? = try running?.acquire(registration)
            try #require(held != nil)
            try held?.noteImage(Fixtures.uuid(78))
            #expect(PostgresRegistrationLocks(url: pg.url).isHeld(registration))
            let skipped = try parseJSON(try pg.run(["recover", "--json"]).stdout) as? [String: Any]
            #expect(skipped?["skippedRunning"] as? [String] == [registration])
            #expect(skipped?["interrupted"] as? [String] == [])
            // The audit does not call it interrupted either, while it runs.
            let audit = try pg.run(["audit", "--json"])
            #expect(!audit.stdout.contains("\"interrupted\""), "\(audit)")
            // The "other host" dies: its connection closes and the server drops the lock.
            held = nil
            running = nil  // the last reference to its connection: closed without releasing, as a crash would
            usleep(200_000)
            let recovered = try parseJSON(try pg.run(["recover", "--json"]).stdout) as? [String: Any]
            #expect(recovered?["interrupted"] as? [String] == [registration])
            #expect(recovered?["skippedRunning"] as? [String] == [])
            let again = try parseJSON(try pg.run(["recover", "--json"]).stdout) as? [String: Any]
            #expect(again?["interrupted"] as? [String] == [])
            #expect(try pg.run(["audit"]).status == 0)
        }
    }
}
