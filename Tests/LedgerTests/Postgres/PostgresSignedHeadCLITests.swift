import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresSignedHeadCLITests

/// `ledger head --key`, `LEDGER_WITNESS` and `ledger verify --signed-head` on a PostgreSQL store,
/// through the built `ledger`: a 3,000-event store's signed head verifies with the Python verifier
/// and with ledger, a witness cosigns it and again as the store grows (its size kept in the data
/// folder), a history re-chained in the table after signing is `signed-head-mismatch`, and a damaged
/// signature or a key of another name `bad-signature`.
@Suite struct PostgresSignedHeadCLITests {
    /// A store holding the generated log of `events` events; that log's path.
    private func imported(_ pg: PostgresLedger, events: Int) throws -> String {
        let log = try GeneratedLog.make(in: pg.dir.path, events: events, seed: 29)
        let loaded = try pg.run(["import", log])
        try #require(loaded.status == 0, "\(loaded)")
        return log
    }

    @Test("a 3,000-event store's signed head verifies with the Python verifier and verify --signed-head, cosigned twice as it grows")
    func aSignedHeadVerifiesAndIsCosignedAsTheStoreGrows() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withPostgresLedger { pg in
                let log = try TreeLog(path: try imported(pg, events: 3000))
                let env = ["LEDGER_WITNESS": keys.witnessCommand(state: folder + "/w1.state", request: folder + "/request")]
                let first = try pg.run(["head", "--key", keys.path("log.skey")], env: env)
                let root = try log.root(3000)
                #expect(first.status == 0 && first.stdout.hasPrefix("example.com/ledger\n3000\n\(root)\n\n"), "\(first)")
                #expect(first.stdout.contains("\n— witness.example/w1 "), "\(first)")
                try writeBytes(Array(first.stdout.utf8), to: folder + "/first.note")
                let python = try pythonTool("verify_signed_head.py", [folder + "/first.note", "--vkey", keys.path("log.vkey"), "--witness-vkey", keys.path("w1.vkey")])
                #expect(python.status == 0, "\(python)")
                let verdict = try signedHeadVerdict({ try pg.run($0) }, note: folder + "/first.note", vkey: keys.path("log.vkey"), witnesses: [keys.path("w1.vkey")])
                #expect(verdict.status == 0 && verdict.kinds.isEmpty, "\(verdict.result)")
                #expect(try String(contentsOfFile: pg.dir.path + "/events.jsonl.witnesses", encoding: .utf8).hasSuffix(" 3000\n"))

                #expect(try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "T"), stdin: "correct horse 1\n").status == 0)
                let second = try pg.run(["head", "--key", keys.path("log.skey")], env: env)
                #expect(second.status == 0 && second.stdout.contains("\n— witness.example/w1 "), "\(second)")
                let request = try String(contentsOfFile: folder + "/request", encoding: .utf8)
                #expect(request.hasPrefix("old 3000\n") && !request.hasPrefix("old 3000\n\n"), "a real consistency proof: \(request)")
                try writeBytes(Array(second.stdout.utf8), to: folder + "/second.note")
                let again = try signedHeadVerdict({ try pg.run($0) }, note: folder + "/second.note", vkey: keys.path("log.vkey"), witnesses: [keys.path("w1.vkey")])
                #expect(again.status == 0 && again.kinds.isEmpty, "\(again.result)")
                // Without a data folder the size is kept nowhere: the witness's size-conflict answer gives it, and no folder is made.
                let noFolder = try run(Paths.ledger, ["head", "--key", keys.path("log.skey"), "--store", pg.url.text, "--data", folder + "/none"],
                                       env: fastHashEnvironment.merging(env) { _, new in new })
                #expect(noFolder.status == 0 && noFolder.stdout.contains("\n— witness.example/w1 "), "\(noFolder)")
                #expect(!FileManager.default.fileExists(atPath: folder + "/none"))
            }
        }
    }

    @Test("a history re-chained in the table after signing, its caches discarded, is signed-head-mismatch; bad signatures are bad-signature")
    func aRechainedStoreAndBadSignaturesAreRefused() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            #expect(try run(Paths.ledger, ["keygen", "--name", "other.example/ledger", "--out", folder + "/other"]).status == 0)
            try withPostgresLedger { pg in
                _ = try imported(pg, events: 300)
                let note = try pg.run(["head", "--key", keys.path("log.skey")]).stdout
                try writeBytes(Array(note.utf8), to: folder + "/head.note")
                var damaged = Array(note.utf8)
                damaged[damaged.count - 5] = damaged[damaged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                try writeBytes(damaged, to: folder + "/damaged.note")
                for (file, vkey) in [("damaged.note", keys.path("log.vkey")), ("head.note", folder + "/other.vkey")] {
                    let verdict = try signedHeadVerdict({ try pg.run($0) }, note: folder + "/" + file, vkey: vkey)
                    #expect(verdict.status == 1 && verdict.kinds == ["bad-signature"], "\(file): \(verdict.result)")
                }
                // Line 40 edited and every later line re-chained in ledger_events; the caches discarded.
                let admin = try PostgresConnection(pg.url)
                var envelopes = try LogRewriting.envelopes(Array(try pg.export().stdout.utf8))
                envelopes[39].at = Timestamp(millis: envelopes[39].at.millis + 1)
                for (n, line) in splitLines(LogRewriting.chained(envelopes)).enumerated() where n >= 39 {
                    let text = String(decoding: line.dropLast(), as: UTF8.self)
                    _ = try admin.execute("UPDATE ledger_events SET line = $1, hash = $2 WHERE seq = $3", [text, String(text.suffix(66).prefix(64)), String(n + 1)])
                }
                #expect(try pg.run(["recover", "--accept-history"]).status == 0)
                #expect(try pg.run(["verify"]).status == 0, "the chain alone holds")
                let verdict = try signedHeadVerdict({ try pg.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                #expect(verdict.status == 1 && verdict.kinds == ["signed-head-mismatch"], "\(verdict.result)")
                // The key remembers its head beside itself: the rewritten store is not signed, its tree rows deleted or not.
                _ = try admin.execute("DELETE FROM ledger_tree")
                let resigned = try pg.run(["head", "--key", keys.path("log.skey"), "--json"])
                #expect(resigned.status == 1 && (try? parseObject(resigned.stdout))?["code"] as? String == "signed-head-mismatch", "\(resigned)")
            }
        }
    }
}
