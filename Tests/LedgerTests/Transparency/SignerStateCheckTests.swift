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
        try write(dir, nodes: nodes(leaves, forging: forged), leaves: leaves.count, mark: try lastMark(dir.logPath))
    }

    /// Writes over `dir`'s tree file a sealed state of `leaves` leaves, the post-order `nodes`, covering `mark`.
    static func write(_ dir: LedgerDir, nodes: [Digest32], leaves: Int, mark: TreeMark) throws {
        var bytes = TreeFile.encode(leaves: UInt64(leaves), mark: mark)
        for (position, hash) in nodes.enumerated() {
            bytes += hash.bytes
            withUnsafeBytes(of: TreeFile.checksum(position: UInt64(position), hash: hash).littleEndian) { bytes += $0 }
        }
        try writeBytes(bytes, to: treePath(dir))
    }
}

// MARK: - SignerStateCheckTests

/// `ledger head --key` signs a root computed from the lines: a re-sealed forged tree state is refused
/// (`cache-mismatch`, exit 1, nothing printed) on a first signing, and after one whether the forged
/// leaf lies before or after the size signed last. Removing the state lets it sign the log's true
/// root again. The heads signed are remembered beside the key (`log.heads`), per origin.
@Suite struct SignerStateCheckTests {
    /// `head --key` refused as `cache-mismatch`, nothing printed; the key's memory untouched.
    private func expectRefused(_ dir: LedgerDir, _ keys: SignedHeadKeys, _ what: String) throws {
        let before = try? readBytes(keys.path("log.heads"))
        let refused = try dir.run(["head", "--key", keys.path("log.skey"), "--json"])
        #expect(refused.status == 1 && (try? parseObject(refused.stdout))?["code"] as? String == "cache-mismatch", "\(what): \(refused)")
        #expect(!refused.stdout.contains("signedHead"), "\(what): \(refused)")
        let plain = try dir.run(["head", "--key", keys.path("log.skey")])
        #expect(plain.status == 1 && plain.stdout.isEmpty && plain.stderr.split(separator: "\n").count == 1, "\(what): \(plain)")
        #expect(plain.stderr.contains("events.jsonl.tree") && plain.stderr.contains("nothing was signed"), "\(what): \(plain)")
        #expect((try? readBytes(keys.path("log.heads"))) == before, "\(what)")
    }

    /// `head --key` signs the log's own root at `size`; the note is saved to `note` when given.
    private func expectSigned(_ dir: LedgerDir, _ keys: SignedHeadKeys, size: Int, note: String? = nil) throws {
        let root = try TreeLog(path: dir.logPath).root(size)
        let signed = try dir.run(["head", "--key", keys.path("log.skey")])
        #expect(signed.status == 0 && signed.stdout.hasPrefix("example.com/ledger\n\(size)\n\(root)\n\n"), "\(signed)")
        let memory = try SignerMemory.load(path: keys.path("log.heads"), signer: try NoteKeyFiles.readSigner(keys.path("log.skey")))
        let entry = memory.entry(origin: "example.com/ledger")
        #expect(entry?.note == signed.stdout && entry?.body.size == UInt64(size), "\(String(describing: entry))")
        #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".signed"), "nothing of the signer's is kept in the data folder")
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
                #expect(!FileManager.default.fileExists(atPath: keys.path("log.heads")))
                try FileManager.default.removeItem(atPath: treePath(dir))
                try expectSigned(dir, keys, size: 400)
            }
        }
    }

    @Test("after a signing at 300 lines, a state forged before 300 or after it is refused")
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

    @Test("a signing after one hashes only the lines added since, its caches removed or not; another origin all of them, once, without disturbing the first")
    func aSigningReadsOnlyTheLinesSinceTheLastOne() throws {
        try withTempDirectory { folder in
            try withTreeLedger(events: 500) { dir, log in
                let all = try readBytes(dir.logPath)
                try writeBytes(Array(splitLines(all).prefix(450).joined()), to: dir.logPath)
                let signer = try TestKeys.log(), memoryPath = folder + "/log.heads"
                func sign(origin: String = "example.com/ledger") throws -> LogTree.SigningRoot {
                    let tree = try LogTree.open(logPath: dir.logPath)
                    var memory = try SignerMemory.load(path: memoryPath, signer: signer)
                    let checked = try tree.signingRoot(last: memory.entry(origin: origin), source: .file(dir.logPath))
                    let note = try SignedHead.sign(signer: signer, origin: origin, size: tree.size, root: checked.root)
                    try memory.record(note: note, origin: origin, size: tree.size, checked: checked)
                    try memory.save(signer: signer)
                    return checked
                }
                #expect(try sign().linesRead == 450, "the first signing compares every line")
                try writeBytes(all, to: dir.logPath)
                let second = try sign(), root = try log.root(500)
                #expect(second.linesRead == 50 && second.root.base64 == root)
                #expect(try sign().linesRead == 0)
                try FileManager.default.removeItem(atPath: treePath(dir))
                #expect(try sign().linesRead == 0, "the memory is the key's: a state rebuilt from the log is checked from it")
                #expect(try sign(origin: "example.com/other").linesRead == 500, "another origin: no head of it signed")
                #expect(try sign(origin: "example.com/other").linesRead == 0)
                #expect(try sign().linesRead == 0, "the first origin's head is still remembered")
                #expect(try SignerMemory.load(path: memoryPath, signer: signer).entries.map(\.origin) == ["example.com/ledger", "example.com/other"])
                let mode = try FileManager.default.attributesOfItem(atPath: memoryPath)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
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
                // Everything but the log removed from the data folder: the key still remembers.
                for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name != "events.jsonl" {
                    try FileManager.default.removeItem(atPath: dir.path + "/" + name)
                }
                let bare = try dir.run(["head", "--key", keys.path("log.skey"), "--json"])
                #expect(bare.status == 1 && (try? parseObject(bare.stdout))?["code"] as? String == "signed-head-mismatch", "\(bare)")
                let newOrigin = try dir.run(["head", "--key", keys.path("log.skey"), "--origin", "example.com/ledger/2"])
                #expect(newOrigin.status == 0 && newOrigin.stdout.hasPrefix("example.com/ledger/2\n200\n"), "\(newOrigin)")
            }
        }
    }
}
