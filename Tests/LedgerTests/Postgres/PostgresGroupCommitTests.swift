import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Synchronization
import Testing

// MARK: - PostgresGroupCommitTests

/// Group commit on PostgreSQL: the batches of one group go in one transaction, each batch checked
/// and answered on its own; a statement the server refuses is one batch's, not its group's; a
/// connection killed before COMMIT fails every batch of the group, none stored, none retried.
@Suite struct PostgresGroupCommitTests {
    /// A registration of `email` by account `n` (its own stream), under `.uniqueEmails`.
    fileprivate static func registration(_ n: Int, email: String) -> GroupedAppend {
        let uid = Fixtures.uuid(5000 + n)
        let created = LedgerEvent.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$salt\(n)$hash\(n)"))
        return GroupedAppend([StreamAppend([created], to: StreamCategory.registration.stream(uid), expected: .noStream)],
                             condition: .uniqueEmails)
    }

    /// Threads that each append one registration through one committer, keeping each outcome.
    private final class Appenders: Sendable {
        let committer: GroupCommitter
        private let outcomes = Mutex<[Int: Result<Int, StoreError>]>([:])
        private let done = DispatchGroup()

        init(_ committer: GroupCommitter) { self.committer = committer }

        /// Starts a thread appending registration `n` (`user<n>@example.com`).
        func start(_ n: Int) {
            done.enter()
            Thread { [self] in
                let batch = PostgresGroupCommitTests.registration(n, email: "user\(n)@example.com")
                let outcome: Result<Int, StoreError>
                do {
                    outcome = .success(try committer.append(batch.parts, condition: batch.condition).count)
                } catch {
                    outcome = .failure(error as? StoreError ?? StoreError(.io, "\(error)"))
                }
                outcomes.withLock { $0[n] = outcome }
                done.leave()
            }.start()
        }

        /// Waits for every thread started, and returns the outcomes by `n`.
        func wait() -> [Int: Result<Int, StoreError>] {
            done.wait()
            return outcomes.withLock { $0 }
        }
    }

    /// The streams of every stored event.
    private static func streams(_ url: PostgresURL) throws -> [String] { try PostgresEventStore(url: url).readAll().map(\.envelope.stream) }

    /// Three batches in one transaction: one appends, one claims an email a live account holds, one
    /// expects a version its stream does not have; each gets its own outcome and only the first is stored.
    @Test func eachBatchOfATransactionKeepsItsConditionAndOutcome() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url)
            try store.createSchema()
            let taken = Self.registration(1, email: "taken@example.com")
            _ = try store.append(taken.parts, condition: taken.condition)
            var wrongVersion = Self.registration(3, email: "third@example.com")
            wrongVersion = GroupedAppend([StreamAppend(wrongVersion.parts[0].events, to: wrongVersion.parts[0].stream, expected: .exactly(4))],
                                         condition: .uniqueEmails)
            let outcomes = store.appendGroup([Self.registration(2, email: "fresh@example.com"), Self.registration(4, email: "taken@example.com"),
                                              wrongVersion])
            #expect(try outcomes[0].get().map(\.seq) == [2])
            #expect(throws: StoreError.self) { try outcomes[1].get() }
            #expect((try? outcomes[1].get()) == nil && "\(outcomes[1])".contains("already in use"))
            #expect("\(outcomes[2])".contains("wrong expected version"))
            #expect(try Self.streams(url) == [taken.parts[0].stream, Self.registration(2, email: "").parts[0].stream])
        }
    }

    /// The server refuses one batch's row (a constraint of the operator's refuses its stream; a
    /// trigger would make writers refuse the store): the transaction is rolled back whole, then each
    /// batch is appended alone, so only that batch fails.
    @Test func aStatementRefusedForOneBatchFailsThatBatchAlone() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url)
            try store.createSchema()
            let bad = Self.registration(2, email: "bad@example.com")
            let admin = try PostgresConnection(url)
            try admin.execute("ALTER TABLE ledger_events ADD CONSTRAINT ledger_test_refuse CHECK (stream <> '\(bad.parts[0].stream)')")
            let batches = [Self.registration(1, email: "one@example.com"), bad, Self.registration(3, email: "three@example.com")]
            let outcomes = store.appendGroup(batches)
            #expect((try? outcomes[0].get()) != nil && (try? outcomes[2].get()) != nil)
            #expect("\(outcomes[1])".contains("ledger_test_refuse"))
            #expect(try Self.streams(url) == [batches[0].parts[0].stream, batches[2].parts[0].stream])
            #expect(try store.head().seq == 2)
        }
    }

    /// The committer's connection is killed while its group's `COMMIT` runs (a deferred trigger parks
    /// the commit itself, so the answer never comes): every batch of the group fails with
    /// `notDurable` ("may or may not be stored"), none is retried, none acknowledged; the server
    /// rolled the transaction back, so the store holds none of them, and the next append reconnects
    /// and goes on from the head it finds.
    @Test func aCommitWhoseAnswerIsLostFailsTheGroupAsNotDurable() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url)
            try store.createSchema()
            let first = Self.registration(0, email: "user0@example.com")
            _ = try store.append(first.parts, condition: first.condition)
            let before = try store.head()
            let admin = try PostgresConnection(url)
            try admin.execute("""
                CREATE FUNCTION ledger_test_pause_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_lock(4243); PERFORM pg_advisory_unlock(4243); RETURN NULL; END $$
                """)
            try admin.execute("""
                CREATE CONSTRAINT TRIGGER ledger_test_pause_commit AFTER INSERT OR UPDATE ON ledger_account_state
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_test_pause_commit()
                """)
            try admin.execute("SELECT pg_advisory_lock(4243)")
            let committer = GroupCommitter(store: PostgresEventStore(url: url))
            let appenders = Appenders(committer)
            for n in 1...4 { appenders.start(n) }
            // Kill the committer's backend once it is parked inside its COMMIT.
            var pid: String?
            for _ in 0..<400 where pid == nil {
                let waiting = try admin.execute("""
                    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND wait_event_type = 'Lock' AND query = 'COMMIT'
                    """)
                pid = waiting.count > 0 ? waiting.string(0, 0) : nil
                if pid == nil { usleep(25_000) }
            }
            let backend = try #require(pid, "no group reached its COMMIT")
            let groupsBefore = committer.groupsWritten
            try admin.execute("SELECT pg_terminate_backend($1::int)", [backend])
            try admin.execute("SELECT pg_advisory_unlock(4243)")
            try admin.execute("DROP TRIGGER ledger_test_pause_commit ON ledger_account_state")
            let seen = appenders.wait()
            #expect(seen.count == 4)
            var failed = 0
            for (n, outcome) in seen {
                // A batch that came after the killed group may have gone in a group of its own.
                guard case .failure(let error) = outcome else { continue }
                failed += 1
                #expect(error.code == .notDurable && error.message.contains("may or may not be stored"), "batch \(n): \(error)")
                #expect(!error.message.contains("\n"))
            }
            #expect(failed >= 1, "the group whose COMMIT was cut was acknowledged")
            #expect(committer.groupsWritten >= groupsBefore)
            // The server rolled the cut transaction back: the acknowledged batches and nothing else
            // follow the head from before, and the log still chains.
            let acknowledged = seen.values.filter { (try? $0.get()) != nil }.count
            #expect(try store.head().seq == before.seq + acknowledged)
            #expect(try store.readAll().count == 1 + acknowledged)
            let again = Self.registration(9, email: "user9@example.com")
            #expect(try committer.append(again.parts, condition: again.condition).map(\.seq) == [before.seq + acknowledged + 1])
        }
    }

    /// The committer's connection is killed while a group of eight batches waits before COMMIT
    /// (a trigger parks it after its inserts): all eight fail with `unavailable`, none is stored or
    /// retried, and the next append reconnects.
    @Test func aConnectionKilledBeforeCommitFailsTheWholeGroup() throws {
        try PostgresServer.get().withDatabase { url in
            try PostgresEventStore(url: url).createSchema()
            let admin = try PostgresConnection(url)
            try admin.execute("""
                CREATE FUNCTION ledger_test_pause() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); RETURN NULL; END $$
                """)
            // On the account-state mark each group's transaction writes after its lines: a trigger on
            // `ledger_events` itself would make writers refuse the store.
            try admin.execute("CREATE TRIGGER ledger_test_pause AFTER INSERT OR UPDATE ON ledger_account_state FOR EACH STATEMENT EXECUTE FUNCTION ledger_test_pause()")
            try admin.execute("SELECT pg_advisory_lock(4242)")
            let committer = GroupCommitter(store: PostgresEventStore(url: url))
            let appenders = Appenders(committer)
            func start(_ n: Int) { appenders.start(n) }
            /// Kills the backend parked in the trigger (other than `killed`), once there is one.
            func killParked(besides killed: String? = nil) throws -> String {
                var pid: String?
                for _ in 0..<400 where pid == nil {
                    let waiting = try admin.execute("""
                        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                          AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO ledger_account_state%' AND pid::text <> $1
                        """, [killed ?? ""])
                    pid = waiting.count > 0 ? waiting.string(0, 0) : nil
                    if pid == nil { usleep(25_000) }
                }
                let backend = try #require(pid, "no group reached its INSERT")
                try admin.execute("SELECT pg_terminate_backend($1::int)", [backend])
                return backend
            }
            // The first batch's group parks; eight more line up behind it, then its connection is
            // killed and the eight go in the next group, which parks and is killed in turn.
            start(0)
            for _ in 0..<400 where committer.groupsWritten == 0 && committer.batchesWaiting > 0 { usleep(10_000) }
            usleep(100_000)
            for n in 1...8 { start(n) }
            for _ in 0..<400 where committer.batchesWaiting < 8 { usleep(10_000) }
            #expect(committer.batchesWaiting == 8)
            let first = try killParked()
            _ = try killParked(besides: first)
            try admin.execute("SELECT pg_advisory_unlock(4242)")
            let seen = appenders.wait()
            #expect(seen.count == 9)
            for (n, outcome) in seen {
                guard case .failure(let error) = outcome else { Issue.record("batch \(n) was acknowledged"); continue }
                #expect(error.code == .unavailable && error.message.contains("nothing of it was stored"), "\(error)")
            }
            #expect(committer.groupsWritten == 2, "the eight waiting batches went in one group: \(committer.groupsWritten) groups")
            #expect(try Self.streams(url).isEmpty)
            try admin.execute("DROP TRIGGER ledger_test_pause ON ledger_account_state")
            let again = Self.registration(9, email: "user9@example.com")
            #expect(try committer.append(again.parts, condition: again.condition).map(\.seq) == [1])
        }
    }
}
