import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ForgedState

/// A tree state someone who can write the data folder can make: the stored hashes of a log whose
/// leaf `forged` was replaced, every hash above it recomputed, every checksum and the header re-sealed.
enum ForgedState {
    /// The leaf hashes of the log at `path`.
    static func leaves(_ path: String) throws -> [Digest32] {
        splitLines(try readBytes(path)).map { Array($0.dropLast()).withUnsafeBytes { MerkleHasher.sha256.leafHash($0) } }
    }

    /// The post-order hashes of `leaves` with leaf `forged` replaced.
    static func nodes(_ leaves: [Digest32], forging forged: Int) -> [Digest32] {
        var leaves = leaves
        leaves[forged] = flipped(leaves[forged], bit: 3)
        return StoredNodes(leaves: leaves).hashes
    }

    /// The root of `leaves` with leaf `forged` replaced.
    static func root(_ leaves: [Digest32], forging forged: Int) throws -> Digest32 {
        var leaves = leaves
        leaves[forged] = flipped(leaves[forged], bit: 3)
        return try MerkleTree(source: StoredNodes(leaves: leaves), hasher: .sha256).root(size: UInt64(leaves.count))
    }

    /// The mark of the last line of the log at `path` (its seq, hash and offsets).
    static func lastMark(_ path: String) throws -> TreeMark {
        let lines = splitLines(try readBytes(path))
        let last = Array(lines.last!.dropLast())
        let envelope = try last.withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: lines.count).0 }
        let end = lines.reduce(0) { $0 + $1.count }
        return TreeMark(head: Head(seq: envelope.seq, hash: envelope.hash), lineStart: end - lines.last!.count, lineEnd: end)
    }

    /// Writes over `dir`'s tree file the re-sealed state of its log with leaf `forged` replaced.
    static func write(_ dir: LedgerDir, forging forged: Int) throws {
        let leaves = try leaves(dir.logPath)
        var bytes = TreeFile.encode(leaves: UInt64(leaves.count), mark: try lastMark(dir.logPath))
        for (position, hash) in nodes(leaves, forging: forged).enumerated() {
            bytes += hash.bytes
            withUnsafeBytes(of: TreeFile.checksum(position: UInt64(position), hash: hash).littleEndian) { bytes += $0 }
        }
        try writeBytes(bytes, to: treePath(dir))
    }
}

// MARK: - SignerStateCheckTests

/// `ledger head --key` signs a root computed from the lines: a re-sealed forged tree state is refused
/// (`cache-mismatch`, exit 1, nothing printed) on a first signing, and after one whether the forged
/// leaf lies before or after the size signed last; a forged record of the last signed head does not
/// make it skip the check. Removing the state lets it sign the log's true root again.
@Suite struct SignerStateCheckTests {
    /// `head --key` refused as `cache-mismatch`, nothing printed; the record of the last signed head untouched.
    private func expectRefused(_ dir: LedgerDir, _ keys: SignedHeadKeys, _ what: String) throws {
        let before = try? readBytes(dir.logPath + ".signed")
        let refused = try dir.run(["head", "--key", keys.path("log.skey"), "--json"])
        #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == "cache-mismatch", "\(what): \(refused)")
        #expect(!refused.stdout.contains("signedHead"), "\(what): \(refused)")
        let plain = try dir.run(["head", "--key", keys.path("log.skey")])
        #expect(plain.status == 1 && plain.stdout.isEmpty && plain.stderr.split(separator: "\n").count == 1, "\(what): \(plain)")
        #expect(plain.stderr.contains("events.jsonl.tree") && plain.stderr.contains("nothing was signed"), "\(what): \(plain)")
        #expect((try? readBytes(dir.logPath + ".signed")) == before, "\(what)")
    }

    /// `head --key` signs the log's own root at `size`; the note is saved to `note` when given.
    private func expectSigned(_ dir: LedgerDir, _ keys: SignedHeadKeys, size: Int, note: String? = nil) throws {
        let root = try TreeLog(path: dir.logPath).root(size)
        let signed = try dir.run(["head", "--key", keys.path("log.skey")])
        #expect(signed.status == 0 && signed.stdout.hasPrefix("example.com/ledger\n\(size)\n\(root)\n\n"), "\(signed)")
        let stored = String(decoding: try readBytes(dir.logPath + ".signed"), as: UTF8.self)
        #expect(stored.hasSuffix(signed.stdout) && stored.hasPrefix("\(size) "), "\(stored)")
        if let note { try writeBytes(Array(signed.stdout.utf8), to: note) }
    }

    @Test("a re-sealed forged state is refused by the first signing")
    func aForgedStateIsRefusedOnTheFirstSigning() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 400) { dir, _ in
                #expect(try dir.run(["head"]).status == 0)
                try ForgedState.write(dir, forging: 99)
                #expect(try dir.run(["head", "--json"]).stdout.contains(try ForgedState.root(ForgedState.leaves(dir.logPath), forging: 99).base64),
                        "head alone reads the forged state (verify is what reports it)")
                try expectRefused(dir, keys, "first signing")
                #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".signed"))
                try FileManager.default.removeItem(atPath: treePath(dir))
                try expectSigned(dir, keys, size: 400)
            }
        }
    }

    @Test("after a signing at 300 lines, a state forged before 300 or after it is refused; a forged last-head record changes nothing")
    func aForgedStateIsRefusedAfterASigning() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 400) { dir, _ in
                let all = try readBytes(dir.logPath)
                try writeBytes(Array(splitLines(all).prefix(300).joined()), to: dir.logPath)
                try expectSigned(dir, keys, size: 300, note: folder + "/300.note")
                try writeBytes(all, to: dir.logPath)
                #expect(try dir.run(["head"]).status == 0, "the state extended to 400")
                for forged in [99, 299, 349] {
                    try ForgedState.write(dir, forging: forged)
                    try expectRefused(dir, keys, "leaf \(forged)")
                }
                // A record of the last head signed by another key of the same name, naming the
                // forged root at 400: not verified, so not used; the whole state is checked.
                let impostor = try TestKeys.log(seed: 77)
                let forgedRoot = try ForgedState.root(ForgedState.leaves(dir.logPath), forging: 349)
                let mark = try ForgedState.lastMark(dir.logPath)
                let fake = try SignedHead.sign(signer: impostor, size: 400, root: forgedRoot)
                try writeBytes(Array("400 \(mark.head.hash) \(mark.lineStart) \(mark.lineEnd)\n\(fake)".utf8), to: dir.logPath + ".signed")
                try expectRefused(dir, keys, "forged record")
                try FileManager.default.removeItem(atPath: treePath(dir))
                try expectSigned(dir, keys, size: 400)
                // The next signing checks only the lines after 400 and still gets the log's root.
                #expect(try dir.register(email: uniqueEmail(), username: "T").status == 0)
                let grown = try TreeLog(path: dir.logPath)
                let size = grown.lines.count, root = try grown.root(size)
                let next = try dir.run(["head", "--key", keys.path("log.skey")])
                #expect(next.status == 0 && next.stdout.contains("\n\(size)\n\(root)\n"), "\(next)")
                let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/300.note", vkey: keys.path("log.vkey"))
                #expect(verdict.status == 0, "\(verdict.result)")
            }
        }
    }

    @Test("a signing after one hashes only the lines added since; another origin, or a record of another key, all of them")
    func aSigningReadsOnlyTheLinesSinceTheLastOne() throws {
        try withTreeLedger(events: 500) { dir, log in
            let all = try readBytes(dir.logPath)
            try writeBytes(Array(splitLines(all).prefix(450).joined()), to: dir.logPath)
            let signer = try TestKeys.log()
            func sign(origin: String = "example.com/ledger", key: NoteSigner? = nil) throws -> LogTree.SigningRoot {
                let tree = try LogTree.open(logPath: dir.logPath)
                let checked = try tree.signingRoot(origin: origin, key: signer.verifierKey, source: .file(dir.logPath))
                try tree.recordSignedHead(try SignedHead.sign(signer: key ?? signer, origin: origin, size: tree.size, root: checked.root))
                return checked
            }
            #expect(try sign().linesRead == 450, "the first signing compares every line")
            try writeBytes(all, to: dir.logPath)
            let second = try sign(), root = try log.root(500)
            #expect(second.linesRead == 50 && second.root.base64 == root)
            #expect(try sign().linesRead == 0)
            #expect(try sign(origin: "example.com/other").linesRead == 500, "another origin: no head of it signed")
            #expect(try sign(origin: "example.com/other").linesRead == 0)
            _ = try sign(origin: "example.com/other", key: try TestKeys.log(seed: 5))
            #expect(try sign(origin: "example.com/other").linesRead == 500, "a record signed by another key is not used")
        }
    }

    @Test("a log whose first lines no longer have the root signed last is not signed again under that origin")
    func aRewrittenHistoryIsNotSignedOver() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 200) { dir, _ in
                try expectSigned(dir, keys, size: 200)
                var envelopes = try LogRewriting.envelopes(try readBytes(dir.logPath))
                envelopes[49].at = Timestamp(millis: envelopes[49].at.millis + 1)
                try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
                #expect(try dir.run(["recover", "--accept-history"]).status == 0)
                let refused = try dir.run(["head", "--key", keys.path("log.skey"), "--json"])
                #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == "signed-head-mismatch", "\(refused)")
                let newOrigin = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", "example.com/ledger/2"])
                #expect(newOrigin.status == 0 && newOrigin.stdout.hasPrefix("example.com/ledger/2\n200\n"), "\(newOrigin)")
            }
        }
    }
}
