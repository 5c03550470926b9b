import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresPipelineTests

/// `PostgresConnection.pipeline`, which an append's reads and writes go through: statements run in
/// order and answer in order in one round trip; the first failure is thrown with the server's
/// SQLSTATE, nothing after it runs, and the connection is usable again afterwards. And what the
/// append decides from one round trip of reads: an id already in the log is never used again.
@Suite struct PostgresPipelineTests {
    @Test func statementsRunAndAnswerInOrder() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            let connection = try PostgresConnection(url)
            let results = try connection.pipeline([
                .init("CREATE TABLE t (n integer, s text)"),
                .init("INSERT INTO t VALUES ($1::integer, $2), ($3::integer, $4)", ["1", "one", "2", nil]),
                .init("SELECT n, s FROM t ORDER BY n"),
                .init("SELECT count(*) FROM t WHERE s IS NULL"),
            ])
            #expect(results.count == 4)
            #expect(results[1].affectedRows == 2)
            #expect(results[2].count == 2 && results[2].string(0, 1) == "one" && results[2].isNull(1, 1))
            #expect(results[3].int(0, 0) == 1)
            #expect(try connection.pipeline([]).isEmpty)
            // Out of pipeline mode again: a plain statement works.
            #expect(try connection.execute("SELECT 7").int(0, 0) == 7)
        }
    }

    @Test func theFirstFailureIsThrownAndNothingAfterItRuns() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            let connection = try PostgresConnection(url)
            try connection.execute("CREATE TABLE t (n integer PRIMARY KEY)")
            #expect {
                try connection.pipeline([
                    .init("BEGIN"),
                    .init("INSERT INTO t VALUES (1)"),
                    .init("INSERT INTO t VALUES (1)"),
                    .init("INSERT INTO t VALUES (2)"),
                ])
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.isUniqueViolation && error.constraint == "t_pkey" && !error.connectionLost
            }
            // The transaction is aborted, not gone: a statement is refused until the rollback.
            #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
            try connection.execute("ROLLBACK")
            #expect(connection.isOpen)
            #expect(try connection.execute("SELECT count(*) FROM t").int(0, 0) == 0)
        }
    }

    @Test func anIDAlreadyInTheLogIsNotUsedAgain() throws {
        let server = try PostgresServer.get()
        try server.withDatabase { url in
            // Two stores drawing the same random bytes: the second one's first id is the first one's.
            let first = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 21))
            try first.createSchema()
            let a = try first.append([Fixtures.registration(1)], to: Fixtures.stream(.registration, 1), expected: .noStream)
            let second = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 21))
            let b = try second.append([Fixtures.registration(2), Fixtures.event(.profileWritten, 2)],
                                      to: Fixtures.stream(.registration, 2), expected: .noStream)
            let ids = (a + b).map(\.envelope.id)
            #expect(Set(ids).count == 3)
            #expect(try first.readAll().map(\.envelope.id) == ids)
        }
    }
}
