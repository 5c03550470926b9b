import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - PostgresSignerStateCheckTests

/// `ledger head --key` on a PostgreSQL store signs a root computed from the lines: `ledger_tree`
/// rows forged to another history (no checksum to forge there) are refused as `cache-mismatch` on
/// the first signing and after one, before and after the size signed last (remembered beside the
/// key, no table of the store's); with the rows removed it signs the store's true root. A history
/// re-chained in the table after a signing is refused even with every cache row deleted.
@Suite struct PostgresSignerStateCheckTests {
    /// The store's lines as a file in the data folder; its path.
    private func exported(_ pg: PostgresLedger) throws -> String {
        let path = pg.dir.path + "/exported.jsonl"
        try writeBytes(Array(try pg.export().stdout.utf8), to: path)
        return path
    }

    /// Rewrites the rows of `ledger_tree` that differ once leaf `forged` of the store's lines is replaced.
    private func forge(_ pg: PostgresLedger, leaf forged: Int) throws {
        let leaves = try ForgedState.leaves(try exported(pg))
        let real = StoredNodes(leaves: leaves).hashes, fake = ForgedState.nodes(leaves, forging: forged)
        let admin = try PostgresConnection(pg.url)
        for position in real.indices where real[position] != fake[position] {
            #expect(try admin.execute("UPDATE ledger_tree SET hash = decode($1, 'hex') WHERE pos = $2", [fake[position].hex, String(position)]).affectedRows == 1)
        }
    }

    /// `head --key` refused as `cache-mismatch`, nothing printed.
    private func expectRefused(_ pg: PostgresLedger, _ keys: SignedHeadKeys, _ what: String) throws {
        let refused = try pg.run(["head", "--key", keys.path("log.skey"), "--json"])
        #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == "cache-mismatch", "\(what): \(refused)")
        #expect((try? parseObject(refused.stdout))?["message"] as? String ?? "" != "" && !refused.stdout.contains("signedHead"), "\(what): \(refused)")
    }

    /// `head --key` signs the store's own root; the note is remembered beside the key, not in the store.
    private func expectSigned(_ pg: PostgresLedger, _ keys: SignedHeadKeys) throws {
        let log = try TreeLog(path: try exported(pg))
        let size = log.lines.count, root = try log.root(size)
        let signed = try pg.run(["head", "--key", keys.path("log.skey")])
        #expect(signed.status == 0 && signed.stdout.hasPrefix("example.com/ledger\n\(size)\n\(root)\n\n"), "\(signed)")
        let memory = try SignerMemory.load(path: keys.path("log.heads"), signer: try NoteKeyFiles.readSigner(keys.path("log.skey")))
        #expect(memory.entry(origin: "example.com/ledger")?.note == signed.stdout)
        #expect(try PostgresConnection(pg.url).execute("SELECT to_regclass('ledger_signed_head') IS NULL").string(0, 0) == "t")
    }

    @Test("forged ledger_tree rows are refused by the first signing and after one, before and after the size signed last")
    func forgedRowsAreRefused() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withPostgresLedger { pg in
                let log = try GeneratedLog.make(in: pg.dir.path, events: 120, seed: 29)
                try #require(try pg.run(["import", log]).status == 0)
                #expect(try pg.run(["head"]).status == 0)
                try forge(pg, leaf: 30)
                try expectRefused(pg, keys, "first signing")
                _ = try PostgresConnection(pg.url).execute("DELETE FROM ledger_tree")
                try expectSigned(pg, keys)
                // More lines, the state extended past the size signed (120), then forged on either side of it.
                #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "T"), stdin: "correct horse 1\n").status == 0)
                #expect(try pg.run(["head"]).status == 0)
                for forged in [30, 120] {
                    try forge(pg, leaf: forged)
                    try expectRefused(pg, keys, "leaf \(forged)")
                    _ = try PostgresConnection(pg.url).execute("DELETE FROM ledger_tree")
                    #expect(try pg.run(["head"]).status == 0)
                }
                try expectSigned(pg, keys)
            }
        }
    }
}
