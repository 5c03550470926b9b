import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - ProofToolTests

/// `Events/tools/verify_proof.py`, which checks `ledger prove --json` with nothing but hashlib:
/// random inclusion and consistency proofs of a log of 3,000 events verify; a changed hash, another
/// line, a wrong size or a root of another size are refused.
@Suite struct ProofToolTests {
    /// Runs the tool on `proof` (written to a file), with `line` as the line file when given.
    func check(_ kind: String, _ proof: String, line: [UInt8]? = nil, in dir: LedgerDir) throws -> ProcessResult {
        let proofPath = dir.path + "/proof.json", linePath = dir.path + "/line"
        try writeBytes(Array(proof.utf8), to: proofPath)
        if let line { try writeBytes(line + [0x0A], to: linePath) }
        return try pythonTool("verify_proof.py", [kind, proofPath] + (line == nil ? [] : [linePath]))
    }

    /// `proof` with member `key` replaced by `value` (JSON-encoded again).
    func replacing(_ proof: String, _ key: String, with value: Any) throws -> String {
        var object = try parseObject(proof)
        object[key] = value
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// A Base64 hash with one bit changed.
    func flippedBase64(_ text: String) -> String { flipped(Digest32(base64: text)!, bit: 77).base64 }

    @Test func thePublishedVectorsVerifyWithTheTool() throws {
        let v = try MerkleVectorTests.load()
        try withLedgerDir { dir in
            func json(_ members: [String: Any]) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: members), as: UTF8.self) }
            for item in v.inclusion where item.size == 8 || item.size == 5 {
                let proof = try json(["leafIndex": item.index, "treeSize": item.size, "rootHash": v.roots[item.size]!.base64,
                                      "leafHash": v.leafHashes[Int(item.index)].base64, "proof": item.proof.map(\.base64)])
                let leafPath = dir.path + "/leaf", proofPath = dir.path + "/proof.json"
                try writeBytes(v.leaves[Int(item.index)], to: leafPath)  // the leaf's bytes, no newline
                try writeBytes(Array(proof.utf8), to: proofPath)
                let ok = try pythonTool("verify_proof.py", ["inclusion", proofPath, leafPath])
                #expect(ok.status == 0, "leaf \(item.index) of \(item.size): \(ok)")
            }
            for item in v.consistency {
                let proof = try json(["oldSize": item.old, "treeSize": item.new, "oldRootHash": v.roots[item.old]!.base64,
                                      "rootHash": v.roots[item.new]!.base64, "proof": item.proof.map(\.base64)])
                #expect(try check("consistency", proof, in: dir).status == 0, "\(item.old) -> \(item.new)")
            }
        }
    }

    @Test func randomProofsOfAGeneratedLogVerifyAndChangedOnesDoNot() throws {
        try withTreeLedger(events: 3_000) { dir, log in
            var random = SplitMix64(seed: 9162)
            for _ in 0..<8 {
                let size = random.int(in: 1...3_000), seq = random.int(in: 1...size)
                let result = try dir.run(["prove", String(seq), "--size", String(size), "--json"])
                #expect(result.status == 0, "\(result)")
                let ok = try check("inclusion", result.stdout, line: log.lines[seq - 1], in: dir)
                #expect(ok.status == 0 && ok.stdout.hasPrefix("ok: line \(seq) "), "line \(seq) of \(size): \(ok)")
                #expect(ok.stdout.split(separator: "\n").count == 1)
                // Another line, a changed proof hash, a changed root, another index: refused.
                let other = try check("inclusion", result.stdout, line: log.lines[seq % size], in: dir)
                #expect(other.status == 1 && other.stdout.hasPrefix("bad proof:"), "\(other)")
                let object = try parseObject(result.stdout)
                if var proof = object["proof"] as? [String], !proof.isEmpty {
                    let i = random.below(proof.count)
                    proof[i] = flippedBase64(proof[i])
                    #expect(try check("inclusion", try replacing(result.stdout, "proof", with: proof), line: log.lines[seq - 1], in: dir).status == 1)
                    #expect(try check("inclusion", try replacing(result.stdout, "proof", with: Array(proof.dropLast())), line: log.lines[seq - 1], in: dir).status == 1)
                }
                let root = try #require(object["rootHash"] as? String)
                #expect(try check("inclusion", try replacing(result.stdout, "rootHash", with: flippedBase64(root)), line: log.lines[seq - 1], in: dir).status == 1)
            }
            for _ in 0..<8 {
                let size = random.int(in: 2...3_000), old = random.int(in: 1...(size - 1))
                let result = try dir.run(["prove", "--consistency", String(old), "--size", String(size), "--json"])
                #expect(result.status == 0, "\(result)")
                let ok = try check("consistency", result.stdout, in: dir)
                #expect(ok.status == 0 && ok.stdout.hasPrefix("ok: the tree of size \(size) "), "\(old) -> \(size): \(ok)")
                var proof = try #require(try parseObject(result.stdout)["proof"] as? [String])
                let i = random.below(proof.count)
                proof[i] = flippedBase64(proof[i])
                #expect(try check("consistency", try replacing(result.stdout, "proof", with: proof), in: dir).status == 1, "\(old) -> \(size)")
                // The old root of another size: the log showed two histories.
                let otherRoot = try log.root(old == 1 ? 2 : old - 1)
                #expect(try check("consistency", try replacing(result.stdout, "oldRootHash", with: otherRoot), in: dir).status == 1)
                #expect(try check("consistency", try replacing(result.stdout, "oldSize", with: size + 1), in: dir).status == 1)
            }
            // Not a proof at all: one line, exit 1.
            let garbage = try check("consistency", "{\"proof\": 3}", in: dir)
            #expect(garbage.status == 1 && garbage.stdout.split(separator: "\n").count == 1, "\(garbage)")
        }
    }
}
