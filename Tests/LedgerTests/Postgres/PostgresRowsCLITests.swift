import Foundation
import LedgerKit
import Testing

/// The rows of `ledger_events` must hold one line each, in `seq` order without a gap: lines that
/// chain as a file's would, but are spread over the rows otherwise, are damage to `verify` and the
/// reads, not an intact log. Through the built `ledger`.
@Suite struct PostgresRowsCLITests {
    /// A store of two registrations (six lines).
    private func populated(_ pg: PostgresLedger) throws {
        for name in ["A", "B"] {
            let result = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: name), stdin: "correct horse 1\n")
            #expect(result.status == 0, "\(result)")
        }
        #expect(try pg.run(["verify"]).status == 0)
    }

    /// The last rows of a batch deleted (the only rows the server lets go: the tail), one or two of
    /// its three: a writer does not chain a line after the cut batch, which would make it damage for
    /// good; `recover` refuses as writers do, however many rows are left (a registration left
    /// complete or not by the cut); and writers, `recover` and `verify` name the same line, the
    /// batch's first, saying what is missing in PostgreSQL's terms, not a file's.
    @Test(arguments: [1, 2])
    func aBatchCutAtTheTailIsNotAppendedTo(_ cut: Int) throws {
        try withPostgresLedger { pg in
            try populated(pg)
            let deleted = try PostgresConnection(pg.url).execute("DELETE FROM ledger_events WHERE seq > \(6 - cut)")
            #expect(deleted.affectedRows == cut)
            let message = "the store ends inside a batch (\(3 - cut) complete line\(cut == 2 ? "" : "s") from line 4)"
            let named = "line 4: torn-tail: " + message
            let before = try pg.export().stdout
            let refused = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "C"), stdin: "correct horse 1\n")
            #expect(refused.status == 1 && refused.stderr.contains(named) && refused.stderrLines.count == 1, "\(refused)")
            let recovered = try pg.run(["recover", "--json"])
            #expect(recovered.status == 1 && recovered.stderr.contains(named) && recovered.stderrLines.count == 1, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["code"] as? String == "damaged", "\(recovered)")
            #expect(try pg.export().stdout == before, "nothing appended")
            let verified = try pg.run(["verify", "--json"])
            let problem = (try parseObject(verified.stdout)["problems"] as? [[String: Any]])?.first
            #expect(verified.status == 1 && problem?["line"] as? Int == 4 && problem?["kind"] as? String == "torn-tail", "\(verified)")
            #expect((problem?["message"] as? String)?.hasPrefix(message) == true, "\(verified)")
            #expect(!verified.stdout.contains("events.jsonl.broken"), "\(verified)")
            // Reads skip the cut batch and say what happened; the export of a store that lost rows is damage.
            let users = try pg.run(["users", "--json"])
            #expect(users.status == 0 && users.stderr.contains(named) && !users.stderr.contains("recover"), "\(users)")
            let exported = try pg.export()
            #expect(exported.status == 1 && exported.stderrLines.count == 1 && !exported.stderr.contains("events.jsonl.broken"), "\(exported)")
        }
    }

    /// Rows stored out of `seq` order (a row written again goes to the table's end) are no damage:
    /// every read, `verify` and `export` give what they gave before (the rows come in `seq` order).
    @Test func rowsStoredOutOfOrderReadAsBefore() throws {
        try withPostgresLedger { pg in
            try populated(pg)
            let env = ["LEDGER_CHECKPOINT_EVERY": "0"]
            let before = try ["replay", "users", "audit"].map { try pg.run([$0, "--json"], env: env).stdout }
            let exported = try pg.export().stdout
            let connection = try PostgresConnection(pg.url)
            for seq in [2, 5, 1] { try connection.execute("UPDATE ledger_events SET line = line WHERE seq = \(seq)") }
            #expect(try connection.execute("SELECT seq FROM ledger_events").int(0, 0) != 1, "the table's first row is no longer seq 1")
            #expect(try ["replay", "users", "audit"].map { try pg.run([$0, "--json"], env: env).stdout } == before)
            #expect(try pg.export().stdout == exported)
            let verified = try pg.run(["verify", "--json"])
            #expect(try verified.status == 0 && parseObject(verified.stdout)["events"] as? Int == 6, "\(verified)")
            // A gap after rows out of order is still a gap, named at its line (the server refuses it
            // unless the row after it goes first, or the constraint does).
            #expect(refusedByTheLineGuard(pg.url, "DELETE FROM ledger_events WHERE seq = 4", guard: PostgresSchema.priorLineGuard))
            try dropPostgresLineGuards(pg.url)
            try connection.execute("DELETE FROM ledger_events WHERE seq = 4")
            let gap = try pg.run(["verify", "--json"])
            let problems = try parseObject(gap.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(gap.status == 1 && problems.first?["kind"] as? String == "seq-gap" && problems.first?["line"] as? Int == 4, "\(gap)")
        }
    }

    /// A row deleted (inside a batch, or two rows apart) reads as the file with those lines removed,
    /// and an empty row (or one that is not JSON, the last one too) as the file's such line: `verify --store` gives the file's report (count,
    /// head, problems) and `export --store` the file's export (every line before the first damage).
    @Test(arguments: [("delete", [5]), ("delete", [2, 5]), ("empty", [5]), ("empty", [6]), ("not json", [6])])
    func aMissingOrEmptyRowIsReportedAsTheFileIs(_ damage: String, _ rows: [Int]) throws {
        try withTempDirectory { folder in
            try withPostgresLedger { pg in
                try populated(pg)
                let lines = splitLines(Array(try pg.export().stdout.utf8))
                try FileManager.default.createDirectory(atPath: "\(folder)/data", withIntermediateDirectories: true)
                let file = "\(folder)/data/events.jsonl"
                let kept = lines.enumerated().compactMap { n, line -> [UInt8]? in
                    guard rows.contains(n + 1) else { return line }
                    return damage == "delete" ? nil : damage == "empty" ? [0x0A] : Array("not json\n".utf8)
                }
                try writeBytes(kept.flatMap { $0 }, to: file)
                let connection = try PostgresConnection(pg.url)
                try dropPostgresLineGuards(pg.url)  // the server refuses such rows otherwise
                for seq in rows {
                    try connection.execute(damage == "delete" ? "DELETE FROM ledger_events WHERE seq = \(seq)"
                                           : "UPDATE ledger_events SET line = '\(damage == "empty" ? "" : damage)' WHERE seq = \(seq)")
                }
                let store = try pg.run(["verify", "--json"]), bare = try ledger("verify", file, "--json")
                #expect(store.status == 1 && bare.status == 1, "\(store) \(bare)")
                #expect(try parseObject(store.stdout)["events"] as? Int == parseObject(bare.stdout)["events"] as? Int, "\(store) \(bare)")
                #expect(try parseObject(store.stdout)["anchor"] as? String == parseObject(bare.stdout)["anchor"] as? String, "\(store) \(bare)")
                let problems = { (text: String) in try (parseObject(text)["problems"] as? [[String: Any]] ?? []).map { "\($0["line"]!) \($0["kind"]!) \($0["message"]!)" } }
                #expect(try problems(store.stdout) == problems(bare.stdout))
                let exported = try pg.export(), fileExport = try ledger("export", "--data", "\(folder)/data")
                #expect(exported.status == 1 && exported.stdout == fileExport.stdout, "\(exported) \(fileExport)")
            }
        }
    }

    /// Over random damage to a generated log of several thousand rows (rows deleted, emptied, made
    /// not JSON, or rewritten so that they lie out of order, one to four at random places before its
    /// last batches), the store's line stream reads as the file with the same damage: `verify
    /// --store` gives the file's report (count, anchor, problems) and `export --store` the file's
    /// export, bytes and status.
    @Test(arguments: 0..<10)
    func randomRowDamageReadsAsTheFileWithTheSameDamage(seed: Int) throws {
        try withTempDirectory { folder in
            try withPostgresLedger { pg in
                let log = try GeneratedLog.make(in: folder, events: 2_500, seed: 60 + seed)
                #expect(try pg.run(["import", log]).status == 0)
                var lines = splitLines(try readBytes(log))
                let random = SeededRandom(seed: UInt64(seed) &+ 77)
                let connection = try PostgresConnection(pg.url)
                var guarded = true
                // The server refuses a damaged row while the guards hold (and verify names them gone).
                func unguard() throws { if guarded { try dropPostgresLineGuards(pg.url) }; guarded = false }
                var deleted: Set<Int> = []
                var done: [String] = []
                for _ in 0..<(1 + random.next(4)) {
                    let seq = 1 + random.next(lines.count - 10)  // not the last batches: a cut tail is said in the store's terms
                    guard !deleted.contains(seq) else { continue }
                    switch random.next(4) {
                    case 0:
                        try unguard()
                        try connection.execute("DELETE FROM ledger_events WHERE seq = \(seq)")
                        deleted.insert(seq)
                        done.append("delete \(seq)")
                    case 1:
                        try unguard()
                        try connection.execute("UPDATE ledger_events SET line = '' WHERE seq = \(seq)")
                        lines[seq - 1] = [0x0A]
                        done.append("empty \(seq)")
                    case 2:
                        try unguard()
                        try connection.execute("UPDATE ledger_events SET line = 'not json' WHERE seq = \(seq)")
                        lines[seq - 1] = Array("not json\n".utf8)
                        done.append("not json \(seq)")
                    default:
                        try connection.execute("UPDATE ledger_events SET line = line WHERE seq = \(seq)")  // to the table's end
                        done.append("moved \(seq)")
                    }
                }
                try FileManager.default.createDirectory(atPath: "\(folder)/data", withIntermediateDirectories: true)
                let file = "\(folder)/data/events.jsonl"
                try writeBytes(lines.enumerated().filter { !deleted.contains($0.offset + 1) }.flatMap(\.element), to: file)
                let store = try pg.run(["verify", "--json"]), bare = try ledger("verify", file, "--json")
                #expect(store.status == bare.status, "\(done): \(store.stdout.prefix(1500)) \(bare.stdout.prefix(600))")
                let report = { (text: String) in
                    let object = try parseObject(text)
                    let problems = (object["problems"] as? [[String: Any]] ?? []).map { "\($0["line"]!) \($0["kind"]!) \($0["message"]!)" }
                    return "\(object["events"] ?? "") \(object["anchor"] ?? "") \(problems)"
                }
                #expect(try report(store.stdout) == report(bare.stdout), "\(done)")
                let exported = try pg.export(), fileExport = try ledger("export", "--data", "\(folder)/data")
                let same = exported.stdout == fileExport.stdout  // a Bool: no diff of a megabyte
                #expect(exported.status == fileExport.status && same, "\(done): \(exported.status) \(fileExport.status), \(exported.stdout.utf8.count) against \(fileExport.stdout.utf8.count) bytes")
            }
        }
    }

    /// Row `seq 2` given row 3's line after its own (a newline between), and row 3 deleted: the
    /// lines still chain, the rows do not; or the last row's `seq` moved on, leaving a gap.
    @Test(arguments: [
        ["UPDATE ledger_events SET line = line || E'\\n' || (SELECT line FROM ledger_events WHERE seq = 3) WHERE seq = 2",
         "DELETE FROM ledger_events WHERE seq = 3"],
        ["UPDATE ledger_events SET seq = 10 WHERE seq = 6"],
    ])
    func rowsThatDoNotHoldOneLineEachInSeqOrderAreDamage(_ damage: [String]) throws {
        try withPostgresLedger { pg in
            try populated(pg)
            let connection = try PostgresConnection(pg.url)
            try dropPostgresLineGuards(pg.url)  // the server refuses such rows otherwise
            for statement in damage { try connection.execute(statement) }
            let verified = try pg.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(problems.first?["kind"] as? String == (damage.count == 2 ? "invalid-json" : "seq-gap"), "\(problems)")
            #expect((problems.first?["message"] as? String)?.contains("ledger_events") == true, "\(problems)")
            // The report's head ends the last whole batch (a registration's three lines) before the
            // rows that do not hold, as a file's ends its intact prefix.
            let intact = damage.count == 2 ? 0 : 3
            let report = try parseObject(verified.stdout)
            #expect((report["head"] as? [String: Any])?["seq"] as? Int == intact, "\(report)")
            #expect(report["events"] as? Int == intact, "\(report)")
            let human = try pg.run(["verify"])
            #expect(human.stdout.contains("intact through seq \(intact) "), "\(human)")
            for read in ["replay", "users", "audit"] {
                let result = try pg.run([read, "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
                #expect(result.status == 1, "\(read): \(result)")
                #expect(result.stderr.contains("damaged") || result.stdout.contains("damaged"), "\(read): \(result)")
            }
        }
    }
}
