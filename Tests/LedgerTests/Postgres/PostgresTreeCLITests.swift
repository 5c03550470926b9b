import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresTreeCLITests

/// `ledger head`, `ledger prove` and verify's check of the tree's state (`ledger_tree`) on a
/// PostgreSQL store, through the built `ledger`: the same roots and proofs as the file store for the
/// same lines, extended as the store grows, a changed row a cache-mismatch, a re-chained history refused.
@Suite struct PostgresTreeCLITests {
    /// A store holding the generated log of `events` events, and that log's tree.
    private func imported(_ pg: PostgresLedger, events: Int) throws -> TreeLog {
        let log = try GeneratedLog.make(in: pg.dir.path, events: events, seed: 29)
        let loaded = try pg.run(["import", log])
        try #require(loaded.status == 0, "\(loaded)")
        return try TreeLog(path: log)
    }

    /// `ledger ARGS --json --store URL`, required to succeed, parsed.
    private func json(_ pg: PostgresLedger, _ arguments: [String]) throws -> [String: Any] {
        let result = try pg.run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result)")
        return try parseObject(result.stdout)
    }

    /// The number of rows of `ledger_tree`.
    private func rows(_ pg: PostgresLedger) throws -> Int {
        try PostgresConnection(pg.url).execute("SELECT count(*) FROM ledger_tree").int(0, 0) ?? -1
    }

    @Test func headAndProofsAreTheFileStoresAndGrowWithTheStore() throws {
        try withPostgresLedger { pg in
            #expect(try json(pg, ["head"])["treeSize"] as? Int == 0)
            let log = try imported(pg, events: 250)
            let head = try json(pg, ["head"])
            let last = try log.head(250)
            #expect(head["treeSize"] as? Int == 250 && head["head"] as? String == last)
            #expect(head["rootHash"] as? String == (try log.root(250)))
            #expect(try rows(pg) == Int(MerkleNodeIndex.count(leaves: 250)))
            let proof = try json(pg, ["prove", "77", "--size", "200"])
            #expect(proof["proof"] as? [String] == (try log.tree.inclusionProof(index: 76, size: 200).map(\.base64)))
            let consistency = try json(pg, ["prove", "--consistency", "99"])
            #expect(consistency["proof"] as? [String] == (try log.tree.consistencyProof(oldSize: 99, newSize: 250).map(\.base64)))
            #expect(consistency["oldRootHash"] as? String == (try log.root(99)))
            // A write adds lines: the next head extends the state with them.
            #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "T"), stdin: "correct horse 1\n").status == 0)
            let grown = try TreeLog(path: try exported(pg))
            let after = try json(pg, ["head"])
            #expect(after["treeSize"] as? Int == grown.lines.count && grown.lines.count > 250)
            #expect(after["rootHash"] as? String == (try grown.root(grown.lines.count)))
            #expect(try pg.run(["verify"]).status == 0)
        }
    }

    /// The store's lines written to a file beside the data folder; its path.
    private func exported(_ pg: PostgresLedger) throws -> String {
        let path = pg.dir.path + "/exported.jsonl"
        try writeBytes(Array(try pg.export().stdout.utf8), to: path)
        return path
    }

    @Test func aChangedRowIsACacheMismatchAndARechainedHistoryIsRefused() throws {
        try withPostgresLedger { pg in
            let log = try imported(pg, events: 80)
            _ = try json(pg, ["head"])
            let admin = try PostgresConnection(pg.url)
            // An interior node on line 1's path changed: verify names the table; a proof that reads it starts the state over.
            let position = MerkleNodeIndex.position(level: 3, index: 1)
            let forged = flipped(try log.nodes.node(level: 3, index: 1), bit: 1)
            #expect(try admin.execute("UPDATE ledger_tree SET hash = decode($1, 'hex') WHERE pos = $2", [forged.hex, String(position)]).affectedRows == 1)
            let verified = try pg.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.count == 1 && problems.first?["kind"] as? String == "cache-mismatch", "\(verified)")
            #expect((problems.first?["message"] as? String)?.contains("ledger_tree") == true)
            let proof = try json(pg, ["prove", "1"])
            #expect(proof["proof"] as? [String] == (try log.tree.inclusionProof(index: 0, size: 80).map(\.base64)))
            #expect(try pg.run(["verify"]).status == 0, "rebuilt")
            // Rows lost from the middle (a gap) or from the end (a write cut short): rebuilt, or cut
            // back to the leaves the remaining rows cover and extended.
            for cut in ["pos BETWEEN 10 AND 20", "pos >= \(MerkleNodeIndex.count(leaves: 80) - 2)"] {
                #expect(try admin.execute("DELETE FROM ledger_tree WHERE \(cut)").affectedRows > 0)
                #expect(try json(pg, ["head"])["rootHash"] as? String == (try log.root(80)), "\(cut)")
                #expect(try rows(pg) == Int(MerkleNodeIndex.count(leaves: 80)), "\(cut)")
            }
            // Line 3 edited and every line re-chained after it.
            var envelopes = try LogRewriting.envelopes(Array(try pg.export().stdout.utf8))
            envelopes[2].at = Timestamp(millis: envelopes[2].at.millis + 1)
            for (n, line) in splitLines(LogRewriting.chained(envelopes)).enumerated() {
                let text = String(decoding: line.dropLast(), as: UTF8.self)
                _ = try admin.execute("UPDATE ledger_events SET line = $1, hash = $2 WHERE seq = $3", [text, String(text.suffix(66).prefix(64)), String(n + 1)])
            }
            let rewritten = try pg.run(["verify", "--json"])
            let kinds = (try parseObject(rewritten.stdout)["problems"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
            #expect(rewritten.status == 1 && kinds.contains("history-rewritten") && !kinds.contains("cache-mismatch"), "\(rewritten)")
            let refused = try pg.run(["head", "--json"])
            #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == "history-rewritten", "\(refused)")
            let accepted = try pg.run(["recover", "--accept-history", "--json"])
            #expect((try parseObject(accepted.stdout)["discardedCaches"] as? [String])?.contains("ledger_tree") == true, "\(accepted)")
            let relog = try TreeLog(path: try exported(pg))
            #expect(try json(pg, ["head"])["rootHash"] as? String == (try relog.root(80)))
        }
    }
}
