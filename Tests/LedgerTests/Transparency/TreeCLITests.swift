import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - TreeCLITests

/// `ledger head` and `ledger prove` on a file store, through the built `ledger`: the root and the
/// proofs are RFC 9162's over the log's lines, read from `events.jsonl.tree`, which is extended with
/// the lines added since, rebuilt when damaged, and refused when it recorded another history.
@Suite struct TreeCLITests {
    @Test func headPrintsTheLogsHeadTreeSizeAndRoot() throws {
        try withTreeLedger(events: 300) { dir, log in
            let head = try #require(try dir.json(["head"]) as? [String: Any])
            #expect(keys(head) == ["head", "treeSize", "rootHash"])
            #expect(head["treeSize"] as? Int == 300)
            #expect(head["rootHash"] as? String == (try log.root(300)))
            #expect(head["head"] as? String == (try log.head(300)))
            let verified = try dir.run(["verify"])
            #expect(verified.stdout.contains("head \(try log.head(300))"), "\(verified)")
            // Human output: one fact per line.
            let text = try dir.run(["head"])
            #expect(text.status == 0)
            #expect(text.stdout == "head \(try log.head(300))\ntree size 300\nroot \(try log.root(300))\n")
            #expect(try FileSystem.read(treePath(dir)).count == treeFileSize(leaves: 300))
        }
    }

    @Test func anEmptyLogHasSizeZeroAndTheEmptyRoot() throws {
        try withLedgerDir { dir in
            // No log at all: as every read command, exit 3 naming it, nothing written.
            for arguments in [["head"], ["prove", "1"]] {
                let missing = try dir.run(arguments + ["--json"])
                #expect(missing.status == 3 && (try? parseObject(missing.stdout))?["code"] as? String == "no-log", "\(missing)")
            }
            #expect(!FileManager.default.fileExists(atPath: treePath(dir)), "no state is written for no log")
            try writeBytes([], to: dir.logPath)
            let head = try #require(try dir.json(["head"]) as? [String: Any])
            #expect(head["treeSize"] as? Int == 0)
            #expect(head["rootHash"] as? String == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")  // SHA-256 of nothing
            #expect(head["head"] as? String == Head.empty.anchor)
            let refused = try dir.run(["prove", "1"])
            #expect(refused.status == 2, "\(refused)")
        }
    }

    @Test func theStateIsExtendedWithTheLinesAddedSinceAndWritersLeaveIt() throws {
        try withTreeLedger(events: 400) { dir, log in
            let all = try readBytes(dir.logPath)
            let first = splitLines(all).prefix(150).flatMap { $0 }
            try writeBytes(first, to: dir.logPath)
            #expect((try dir.json(["head"]) as? [String: Any])?["rootHash"] as? String == (try log.root(150)))
            #expect(try FileSystem.read(treePath(dir)).count == treeFileSize(leaves: 150))
            try writeBytes(all, to: dir.logPath)
            let head = try #require(try dir.json(["head"]) as? [String: Any])
            let root400 = try log.root(400)
            #expect(head["treeSize"] as? Int == 400 && head["rootHash"] as? String == root400)
            // The old sizes are still there: a proof against the size first seen.
            let consistency = try #require(try dir.json(["prove", "--consistency", "150"]) as? [String: Any])
            #expect(consistency["oldRootHash"] as? String == (try log.root(150)))
            #expect(try dir.run(["verify"]).status == 0)
        }
        // A writer appends without touching the tree's state: head extends it afterwards.
        try withLedgerDir { dir in
            #expect(try dir.register(email: uniqueEmail()).status == 0)
            #expect(!FileManager.default.fileExists(atPath: treePath(dir)))
            let lines = splitLines(try readBytes(dir.logPath)).count
            let size = (try dir.json(["head"]) as? [String: Any])?["treeSize"] as? Int
            #expect(lines > 0 && size == lines)
            #expect(try dir.register(email: uniqueEmail()).status == 0)
            let log = try TreeLog(path: dir.logPath)
            let head = try #require(try dir.json(["head"]) as? [String: Any])
            let root = try log.root(log.lines.count)
            #expect(head["treeSize"] as? Int == log.lines.count && head["rootHash"] as? String == root)
        }
    }

    @Test func proofsAreTheRFCsAndVerify() throws {
        try withTreeLedger(events: 333) { dir, log in
            for (seq, size) in [(1, 333), (333, 333), (17, 100), (64, 64), (200, 257)] {
                let proof = try #require(try dir.json(["prove", String(seq), "--size", String(size)]) as? [String: Any])
                #expect(keys(proof) == ["leafIndex", "treeSize", "leafHash", "rootHash", "proof"])
                #expect(proof["leafIndex"] as? Int == seq - 1 && proof["treeSize"] as? Int == size)
                let expected = try log.tree.inclusionProof(index: UInt64(seq - 1), size: UInt64(size)).map(\.base64)
                #expect(proof["proof"] as? [String] == expected, "line \(seq) in \(size)")
                #expect(proof["rootHash"] as? String == (try log.root(size)))
                #expect(proof["leafHash"] as? String == (try log.nodes.node(level: 0, index: UInt64(seq - 1)).base64))
            }
            let whole = try #require(try dir.json(["prove", "5"]) as? [String: Any])
            #expect(whole["treeSize"] as? Int == 333)
            for (old, size) in [(0, 333), (333, 333), (1, 2), (100, 333), (128, 256), (7, 200)] {
                let proof = try #require(try dir.json(["prove", "--consistency", String(old), "--size", String(size)]) as? [String: Any])
                #expect(keys(proof) == ["oldSize", "treeSize", "oldRootHash", "rootHash", "proof"])
                let expected = try log.tree.consistencyProof(oldSize: UInt64(old), newSize: UInt64(size)).map(\.base64)
                #expect(proof["proof"] as? [String] == expected, "\(old) -> \(size)")
                let (oldRoot, root) = (try log.root(old), try log.root(size))
                #expect(proof["oldRootHash"] as? String == oldRoot && proof["rootHash"] as? String == root)
                if old == 0 || old == size { #expect(expected.isEmpty) }
            }
        }
    }

    @Test func badNumbersAreUsageErrorsOnOneLine() throws {
        try withTreeLedger(events: 20) { dir, _ in
            let cases: [[String]] = [
                ["prove", "0"], ["prove", "21"], ["prove", "5", "--size", "4"], ["prove", "1", "--size", "21"],
                ["prove", "--consistency", "6", "--size", "5"], ["prove", "--consistency", "21"], ["prove", "x"], ["prove", "-1"],
                ["prove", "1", "--size", "1e3"], ["prove"], ["prove", "3", "--consistency", "2"], ["prove", "99999999999999999999999"],
            ]
            for arguments in cases {
                let result = try dir.run(arguments)
                #expect(result.status == 2, "\(arguments): \(result)")
                #expect(result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result)")
                let json = try dir.run(arguments + ["--json"])
                #expect(json.status == 2)
                let error = try parseObject(json.stdout)
                #expect(error["status"] as? String == "error" && error["code"] as? String == "usage", "\(arguments): \(json)")
            }
            for command in ["head", "prove"] {
                let help = try dir.run([command, "--help"])
                #expect(help.status == 0 && help.stdout.contains("ledger \(command)"), "\(help)")
            }
        }
    }

    @Test func theTreeCoversTheIntactPrefixAndSaysWhereItStops() throws {
        try withTreeLedger(events: 90) { dir, log in
            // A torn tail: the bytes after the last newline are not a line.
            let whole = try readBytes(dir.logPath)
            try writeBytes(whole + Array(#"{"seq":91,"id":"#.utf8), to: dir.logPath)
            let torn = try dir.run(["head", "--json"])
            #expect(torn.status == 0, "\(torn)")
            #expect(try parseObject(torn.stdout)["treeSize"] as? Int == 90)
            #expect(torn.stderr.contains("before line 91 (torn-tail)"), "\(torn)")
            try writeBytes(whole, to: dir.logPath)
            let clean = try dir.run(["head"])
            let root90 = try log.root(90)
            #expect(clean.stderr.isEmpty && clean.stdout.contains("root \(root90)"), "\(clean)")
            // Damage on line 40, the state built afresh: the tree stops before it. (A state recorded
            // earlier whose last line the log still holds as it was keeps its size: the chain made
            // every line before it as recorded; `verify` reports the damage.)
            try damageLine(dir.logPath, line: 39)  // 0-based
            try FileSystem.remove(treePath(dir))
            let damaged = try dir.run(["head", "--json"])
            #expect(damaged.status == 0, "\(damaged)")
            let head = try parseObject(damaged.stdout)
            let root39 = try log.root(39)
            #expect(head["treeSize"] as? Int == 39 && head["rootHash"] as? String == root39, "\(damaged)")
            #expect(damaged.stderr.contains("before line 40"), "\(damaged)")
        }
    }

    @Test func anErasureLeavesTheTreeAndAMigratedLogGetsItsOwn() throws {
        try withLedgerDir { dir in
            let registered = try parseObject(try dir.register(email: uniqueEmail()).stdout)
            let uid = try #require(registered["uid"] as? String)
            let before = try #require(try dir.json(["head"]) as? [String: Any])
            let size = try #require(before["treeSize"] as? Int)
            #expect(try dir.run(["account", "delete", uid, "--json"]).status == 0)
            // Crypto-shredding changes no line: the tree of the lines before is the same tree.
            let consistency = try #require(try dir.json(["prove", "--consistency", String(size)]) as? [String: Any])
            #expect(consistency["oldRootHash"] as? String == before["rootHash"] as? String)
            #expect((consistency["treeSize"] as? Int ?? 0) > size)
            #expect(try dir.run(["verify"]).status == 0)
        }
        try withTreeLedger(events: 50) { old, log in
            #expect((try old.json(["head"]) as? [String: Any])?["rootHash"] as? String == (try log.root(50)))
            try withLedgerDir { parent in
                let new = LedgerDir(path: parent.path + "/migrated")
                let migrated = try ledger("migrate", "--from", old.logPath, "--data", new.path)
                try #require(migrated.status == 0, "\(migrated)")
                #expect(!FileManager.default.fileExists(atPath: treePath(new)), "the old folder's tree is not copied")
                let head = try #require(try new.json(["head"]) as? [String: Any])
                let fresh = try TreeLog(path: new.logPath)
                let root = try fresh.root(51)
                #expect(head["treeSize"] as? Int == 51 && head["rootHash"] as? String == root)
                #expect(head["rootHash"] as? String != (try log.root(50)))
            }
        }
    }

    @Test func theStateTakesOnlyLinesNoWriterIsStillSyncing() throws {
        try withTreeLedger(events: 40) { dir, log in
            let all = try readBytes(dir.logPath)
            try writeBytes(splitLines(all).prefix(30).flatMap { $0 }, to: dir.logPath)
            // A writer between its write and its sync holds events.lock exclusive: head waits for it.
            let lock = try FileDescriptor(path: dir.path + "/events.lock", flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            try writeBytes(all, to: dir.logPath)  // ten lines written, not yet synced
            let head = try dir.start(["head", "--json"])
            #expect(!head.exits(within: 0.5), "head read the log while a writer held its lock")
            lock.unlock()
            let result = try head.wait()
            #expect(result.status == 0, "\(result)")
            let root = try log.root(40)
            #expect((try parseObject(result.stdout))["rootHash"] as? String == root, "\(result)")
        }
    }

    // MARK: - Attacks on the state

    @Test func anEditedHashIsACacheMismatchAndIsNeverUsed() throws {
        try withTreeLedger(events: 200) { dir, log in
            _ = try dir.run(["head"])
            // Leaf 20's record (line 21): its first byte changed, its checksum left as it was.
            let position = Int(MerkleNodeIndex.position(level: 0, index: 20))
            try flipByte(treePath(dir), at: 88 + 40 * position)
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1)
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.count == 1 && problems.first?["kind"] as? String == "cache-mismatch", "\(verified)")
            #expect((problems.first?["message"] as? String)?.contains(treePath(dir)) == true)
            #expect(problems.first?["line"] as? Int == 21)
            // prove reads that record: it starts the state over instead, and proves from the log.
            let proof = try #require(try dir.json(["prove", "21"]) as? [String: Any])
            #expect(proof["leafHash"] as? String == (try log.nodes.node(level: 0, index: 20).base64))
            #expect(proof["proof"] as? [String] == (try log.tree.inclusionProof(index: 20, size: 200).map(\.base64)))
            #expect(try dir.run(["verify"]).status == 0, "rebuilt")
        }
    }

    @Test func aForgedHashWithItsChecksumIsCaughtByTheProofsOwnCheck() throws {
        try withTreeLedger(events: 200) { dir, log in
            _ = try dir.run(["head"])
            // The level-2 node over leaves 4–7 (on line 1's path), rewritten with a valid checksum.
            let position = MerkleNodeIndex.position(level: 2, index: 1)
            var bytes = try readBytes(treePath(dir))
            let forged = flipped(try log.nodes.node(level: 2, index: 1), bit: 9)
            let offset = 88 + 40 * Int(position)
            bytes.replaceSubrange(offset..<(offset + 32), with: forged.bytes)
            var sum = Checksum64Forgery.record(position: position, hash: forged)
            withUnsafeBytes(of: &sum) { bytes.replaceSubrange((offset + 32)..<(offset + 40), with: $0) }
            try writeBytes(bytes, to: treePath(dir))
            #expect(try dir.run(["verify"]).status == 1, "verify compares every hash")
            let proof = try #require(try dir.json(["prove", "1"]) as? [String: Any])
            #expect(proof["proof"] as? [String] == (try log.tree.inclusionProof(index: 0, size: 200).map(\.base64)))
            #expect(try dir.run(["verify"]).status == 0, "rebuilt")
        }
    }

    @Test func aTruncatedOrTornStateIsRebuilt() throws {
        try withTreeLedger(events: 120) { dir, log in
            _ = try dir.run(["head"])
            for cut in [treeFileSize(leaves: 120) - 13, 88 + 40 * 7 + 3, 50, 0] {
                let bytes = try readBytes(treePath(dir))
                try writeBytes(Array(bytes.prefix(cut)), to: treePath(dir))
                let head = try #require(try dir.json(["head"]) as? [String: Any])
                #expect(head["rootHash"] as? String == (try log.root(120)), "cut at \(cut)")
                let proof = try #require(try dir.json(["prove", "100"]) as? [String: Any])
                #expect(proof["proof"] as? [String] == (try log.tree.inclusionProof(index: 99, size: 120).map(\.base64)), "cut at \(cut)")
                #expect(try dir.run(["verify"]).status == 0, "cut at \(cut)")
            }
            // A damaged header (its checksum fails): rebuilt too.
            try flipByte(treePath(dir), at: 20)
            #expect((try dir.json(["head"]) as? [String: Any])?["rootHash"] as? String == (try log.root(120)))
            #expect(try FileSystem.read(treePath(dir)).count == treeFileSize(leaves: 120))
        }
    }

    @Test func aSymlinkInPlaceOfTheStateIsRefusedNotFollowed() throws {
        try withTreeLedger(events: 30) { dir, _ in
            let target = dir.path + "/elsewhere"
            try writeBytes(Array("precious\n".utf8), to: target)
            #expect(symlink(target, treePath(dir)) == 0)
            for arguments in [["head"], ["prove", "3"]] {
                let refused = try dir.run(arguments)
                #expect(refused.status == 3 && refused.stderr.contains("symbolic link"), "\(arguments): \(refused)")
            }
            #expect(try readBytes(target) == Array("precious\n".utf8))
        }
    }

    @Test func aHistoryRechainedAfterTheTreeRecordedItIsRefusedUntilAccepted() throws {
        try withTreeLedger(events: 60) { dir, _ in
            _ = try dir.run(["head"])
            var envelopes = try LogRewriting.envelopes(try readBytes(dir.logPath))
            envelopes[9].at = Timestamp(millis: envelopes[9].at.millis + 1)
            try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.contains { $0["kind"] as? String == "history-rewritten" && ($0["message"] as? String)?.contains(treePath(dir)) == true },
                    "\(verified)")
            #expect(!problems.contains { $0["kind"] as? String == "cache-mismatch" }, "\(verified)")
            for arguments in [["head"], ["prove", "3"], ["prove", "--consistency", "2"]] {
                let refused = try dir.run(arguments + ["--json"])
                let code = (try? parseObject(refused.stdout))?["code"] as? String
                #expect(refused.status == 1 && code == "history-rewritten", "\(arguments): \(refused)")
            }
            let accepted = try dir.run(["recover", "--accept-history", "--json"])
            #expect(accepted.status == 0, "\(accepted)")
            #expect((try parseObject(accepted.stdout)["discardedCaches"] as? [String])?.contains(treePath(dir)) == true, "\(accepted)")
            let rebuilt = try TreeLog(path: dir.logPath)
            #expect((try dir.json(["head"]) as? [String: Any])?["rootHash"] as? String == (try rebuilt.root(60)))
            #expect(try dir.run(["verify"]).status == 0)
        }
    }
}

// MARK: - Checksum64Forgery

/// What someone who rewrites the tree file can compute: a record's checksum (`TreeFile.checksum`).
enum Checksum64Forgery {
    /// The record checksum of `hash` at `position`, little-endian as stored.
    static func record(position: UInt64, hash: Digest32) -> UInt64 { TreeFile.checksum(position: position, hash: hash).littleEndian }
}
