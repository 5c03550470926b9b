import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// The views checkpoint a PostgreSQL store keeps (`ledger_checkpoints`): saved by a read that went
/// far enough, continued by the next read, checked by `verify`, ignored when its seal or line does
/// not hold. Through the built `ledger`.
@Suite struct PostgresCheckpointCLITests {
    /// Two users, a registration rejected for a taken email and two wrong passwords; the rejected
    /// registration's id.
    private func populated(_ pg: PostgresLedger) throws -> String {
        let email = uniqueEmail()
        #expect(try pg.run(LedgerDir.registerArguments(email: email, username: "A"), stdin: "correct horse 1\n").status == 0)
        #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "B"), stdin: "correct horse 1\n").status == 0)
        let failed = try parseObject(try pg.run(LedgerDir.registerArguments(email: email, username: "C") + ["--json"], stdin: "correct horse 1\n").stdout)
        #expect(failed["status"] as? String == "failed")
        for _ in 0..<2 { _ = try pg.run(["login", "--email", email, "--password-stdin"], stdin: "wrong password\n") }
        return try #require(failed["registration"] as? String)
    }

    /// The rows of the checkpoint table: seq, hash and seal.
    private func saved(_ pg: PostgresLedger) throws -> [[String]] {
        let result = try PostgresConnection(pg.url).execute("SELECT seq::text, hash, seal FROM ledger_checkpoints ORDER BY seq")
        return (0..<result.count).map { row in (0..<3).map { result.string(row, $0) ?? "" } }
    }

    /// `command --json` with checkpoints every `every` events (0: off, a fold of every line).
    private func read(_ pg: PostgresLedger, _ command: String, every: Int) throws -> String {
        let result = try pg.run([command, "--json"], env: ["LEDGER_CHECKPOINT_EVERY": String(every)])
        #expect(result.status == 0 || (command == "audit" && result.status == 1), "\(command): \(result)")
        return result.stdout
    }

    /// The store's head.
    private func head(_ pg: PostgresLedger) throws -> Head {
        try PostgresEventStore(url: pg.url, clock: SystemClock(), random: SecureRandom()).head()
    }

    @Test func aReadSavesTheCheckpointAndTheNextReadContinuesIt() throws {
        try withPostgresLedger { pg in
            _ = try populated(pg)
            #expect(try saved(pg).isEmpty)
            let full = try read(pg, "replay", every: 0)
            #expect(try saved(pg).isEmpty, "a read with checkpoints off saves none")
            #expect(try read(pg, "replay", every: 1) == full)
            let first = try head(pg)
            #expect(try saved(pg).map { $0[0] } == [String(first.seq)])
            // More lines after it: a read continues the checkpoint and folds only them, to the same views.
            _ = try pg.run(["login", "--email", uniqueEmail(), "--password-stdin"], stdin: "wrong password\n")
            #expect(try head(pg).seq > first.seq)
            for command in ["replay", "users", "sessions", "audit"] {
                #expect(try read(pg, command, every: 1000) == read(pg, command, every: 0), "\(command)")
            }
            #expect(try saved(pg).map { $0[0] } == [String(first.seq)], "a read that folded fewer lines than the interval saves none")
            // A new one replaces the old: only the newest is kept.
            #expect(try read(pg, "replay", every: 1) == read(pg, "replay", every: 0))
            #expect(try saved(pg).map { $0[0] } == [String(try head(pg).seq)])
            let verified = try pg.run(["verify", "--json"])
            #expect(verified.status == 0, "\(verified)")
        }
    }

    /// Saves, with the library's own writer, a checkpoint of the views the store's events give
    /// without the registration `failed`, claiming the head: doctored, sealed as ledger seals one.
    /// Returns the head it claims.
    @discardableResult
    private func saveDoctored(_ pg: PostgresLedger, without failed: String) throws -> Head {
        let store = PostgresEventStore(url: pg.url, clock: SystemClock(), random: SecureRandom())
        var events: [RecordedEvent] = []
        try store.read(from: 1) { events.append($0); return true }
        var views = LedgerViews()
        for event in events where event.stream != StreamCategory.registration.stream(failed) { views.apply(event) }
        let last = try #require(events.last)
        views.head = Head(seq: last.seq, hash: last.envelope.hash)
        views.events = events.count
        let ids = try #require(IDFingerprints(seed: UUIDBits(high: 1, low: 2), ids: events.map { UUIDBits(uuid: $0.envelope.id)! }))
        store.saveCheckpoint(Checkpoint(views: views, ids: ids, lineStart: 0, offset: 0))
        return views.head
    }

    /// A checkpoint of the views before an erasure line is not saved (they may hold what it erased),
    /// whatever the row's `type` column says: the erasure is looked for in the lines.
    @Test(arguments: [false, true])
    func noCheckpointIsSavedBeforeAnErasureLine(typeColumnChanged: Bool) throws {
        try withPostgresLedger { pg in
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "E") + ["--json"], stdin: "correct horse 1\n")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "F"), stdin: "correct horse 1\n").status == 0)
            let store = PostgresEventStore(url: pg.url, clock: SystemClock(), random: SecureRandom())
            var events: [RecordedEvent] = []
            try store.read(from: 1) { events.append($0); return true }
            #expect(try pg.run(["account", "delete", uid]).status == 0)
            let connection = try PostgresConnection(pg.url)
            if typeColumnChanged {
                #expect(try connection.execute("UPDATE ledger_events SET type = 'SessionEnded' WHERE type = 'PersonalDataErased'").affectedRows == 1)
            }
            var views = LedgerViews()
            for event in events { views.apply(event) }
            let last = try #require(events.last)
            views.head = Head(seq: last.seq, hash: last.envelope.hash)
            views.events = events.count
            let ids = try #require(IDFingerprints(seed: UUIDBits(high: 1, low: 2), ids: events.map { UUIDBits(uuid: $0.envelope.id)! }))
            store.saveCheckpoint(Checkpoint(views: views, ids: ids, lineStart: 0, offset: 0))
            #expect(try saved(pg).isEmpty, "a checkpoint from before the erasure was kept")
        }
    }

    @Test func aResealedCheckpointIsTrustedByReadsAndReportedByVerify() throws {
        try withPostgresLedger { pg in
            let failed = try populated(pg)
            let last = try saveDoctored(pg, without: failed)
            let row = try saved(pg)
            #expect(row.count == 1)
            // The reads trust it (its seal holds and the store holds its line): the rejection is gone from them.
            let audit = try parseObject(try read(pg, "audit", every: 1000))
            #expect((audit["failedRegistrations"] as? [Any])?.isEmpty == true, "\(audit)")
            let checked = try pg.run(["verify", "--json"])
            #expect(checked.status == 1, "\(checked)")
            let problems = try parseObject(checked.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(problems.compactMap { $0["kind"] as? String } == ["cache-mismatch"], "\(checked)")
            #expect((problems.first?["message"] as? String)?.contains("ledger_checkpoints") == true, "\(problems)")
            #expect(problems.first?["line"] as? Int == last.seq)
            #expect(try saved(pg) == row, "verify never changes the checkpoint")
        }
    }

    /// Each a damage to the row, in statements; the last two give it a seq no line has, one of
    /// them a seq whose arithmetic would overflow (the table's CHECK dropped first, as a hand may).
    @Test(arguments: [["UPDATE ledger_checkpoints SET seal = repeat('0', 64)"],
                      ["UPDATE ledger_checkpoints SET body = body || '\\x00'::bytea"],
                      ["UPDATE ledger_checkpoints SET hash = repeat('a', 64)"],
                      ["ALTER TABLE ledger_checkpoints DROP CONSTRAINT ledger_checkpoints_seq_check",
                       "UPDATE ledger_checkpoints SET seq = -9223372036854775808"],
                      ["UPDATE ledger_checkpoints SET seq = 9223372036854775807"]])
    func aCheckpointWhoseSealOrLineDoesNotHoldIsIgnored(_ damage: [String]) throws {
        try withPostgresLedger { pg in
            let failed = try populated(pg)
            let full = try read(pg, "audit", every: 0)
            #expect(((try parseObject(full))["failedRegistrations"] as? [Any])?.count == 1)
            try saveDoctored(pg, without: failed)
            #expect(try read(pg, "audit", every: 1000) != full, "the doctored checkpoint is trusted while intact")
            let connection = try PostgresConnection(pg.url)
            for statement in damage { try connection.execute(statement) }
            #expect(try read(pg, "audit", every: 1000) == full, "and ignored once its seal or line does not hold")
            #expect(try read(pg, "replay", every: 1000) == read(pg, "replay", every: 0))
            let verified = try pg.run(["verify"])
            #expect(verified.status == 0, "a cache no read would use is not checked: \(verified)")
        }
    }
}
