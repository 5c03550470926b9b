import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedLogHeadCLITests

/// A real log end to end: `ledger head` and `ledger prove --consistency` of a 3,000-line log give
/// the roots and proof; heads signed with a `ledger keygen` key are cosigned by `ledger witness` in
/// turn (size 1,000, then 3,000 from 1,000), and the cosigned head passes the Python verifier with
/// the log's root — what `head --key` with `LEDGER_WITNESS` will do.
@Suite struct SignedLogHeadCLITests {
    /// The JSON object of a successful run.
    static func object(_ result: ProcessResult) throws -> [String: Any] {
        #expect(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    @Test("a 3,000-line log's heads, signed and witnessed in turn, verify with the Python verifier")
    func witnessedLog() throws {
        try withTempDirectory { dir in
            let data = dir + "/data"
            _ = try Fixtures.mixedLog(in: data, seed: 29)
            #expect(try ledger("keygen", "--name", "example.com/ledger", "--out", "log", cwd: dir).status == 0)
            #expect(try ledger("keygen", "--name", "witness.example/w1", "--out", "w1", "--cosigner", cwd: dir).status == 0)
            let signer = try NoteKeyFiles.readSigner(dir + "/log.skey")
            let head = try Self.object(try ledger("head", "--data", data, "--json", cwd: dir))
            let size = try #require(head["treeSize"] as? Int)
            let rootText = try #require(head["rootHash"] as? String)
            let root = try #require(Digest32(base64: rootText))
            #expect(size == 3000)
            let consistency = try Self.object(try ledger("prove", "--consistency", "1000", "--data", data, "--json", cwd: dir))
            let oldRootText = try #require(consistency["oldRootHash"] as? String)
            let oldRoot = try #require(Digest32(base64: oldRootText))
            let proofTexts = try #require(consistency["proof"] as? [String])
            let proof = proofTexts.compactMap { Digest32(base64: $0) }
            #expect(proof.count == proofTexts.count && !proof.isEmpty)
            #expect(consistency["rootHash"] as? String == root.base64)

            let witnessArguments = ["witness", "--log-vkey", "log.vkey", "--key", "w1.skey", "--state", "w1.state"]
            let first = try SignedHead.sign(signer: signer, size: 1000, root: oldRoot)
            let answer1 = try run(Paths.ledger, witnessArguments, stdin: String(decoding: AddCheckpointRequest.body(oldSize: 0, proof: [], note: first), as: UTF8.self), cwd: dir)
            #expect(answer1.status == 0, "\(answer1)")
            let note = try SignedHead.sign(signer: signer, size: UInt64(size), root: root)
            let answer2 = try run(Paths.ledger, witnessArguments, stdin: String(decoding: AddCheckpointRequest.body(oldSize: 1000, proof: proof, note: note), as: UTF8.self), cwd: dir)
            #expect(answer2.status == 0, "\(answer2)")
            let cosigned = try SignedHead.appendingCosignatures(Array(answer2.stdout.utf8), to: note)
            try writeBytes(Array(cosigned.utf8), to: dir + "/head.note")
            let checked = try pythonTool("verify_signed_head.py", [dir + "/head.note", "--vkey", dir + "/log.vkey", "--witness-vkey", dir + "/w1.vkey"])
            #expect(checked.status == 0 && checked.stdout == "ok: example.com/ledger size 3000 root \(root.base64) (\(root.hex))\n", "\(checked)")
            let logKey = try NoteKeyFiles.readVerifier(dir + "/log.vkey"), witnessKey = try NoteKeyFiles.readVerifier(dir + "/w1.vkey")
            let body = try SignedHead.verify(Array(cosigned.utf8), logKey: logKey, witnessKeys: [witnessKey])
            #expect(body.size == 3000 && body.root == root)
            // The first head again, now older than what the witness holds: refused, 409 with 3000.
            let replay = try run(Paths.ledger, witnessArguments + ["--json"], stdin: String(decoding: AddCheckpointRequest.body(oldSize: 0, proof: [], note: first), as: UTF8.self), cwd: dir)
            #expect(replay.status == 1 && replay.stdout.contains("\"code\":\"size-conflict\"") && replay.stdout.contains("\"size\":3000"), "\(replay)")
        }
    }
}
