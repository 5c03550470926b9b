import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

/// `events.jsonl.index.checkpoint`, the writers' index saved durably: a writer without a usable
/// index (after a reboot, or with the file gone) starts from it and folds only the lines after it;
/// a copy that does not match the log is refused, and one that disagrees with it is reported by
/// `verify`, end to end through the built `ledger`.
@Suite struct IndexCheckpointCLITests {
    /// A checkpoint every 4 events.
    private let every = ["LEDGER_CHECKPOINT_EVERY": "4"]

    /// Three users registered with checkpoints on, then two more with the default interval (no new
    /// checkpoint); returns the checkpoint's path and the seq of the line it covers.
    private func populated(_ dir: LedgerDir) throws -> (path: String, seq: Int) {
        for n in 1...3 { #expect(try dir.register(email: "user\(n)@example.com", env: every).status == 0) }
        for n in 4...5 { #expect(try dir.register(email: "user\(n)@example.com").status == 0) }
        let path = dir.logPath + ".index.checkpoint"
        let bytes = try readBytes(path)
        // WritersIndex's header: the covered line's seq at offset 64.
        let seq = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 64, as: Int64.self) })
        let lines = splitLines(try dir.logBytes()).count
        #expect(seq >= 4 && seq < lines, "the checkpoint covers a prefix")
        return (path, seq)
    }

    /// The status of registering `email`, as `register --json` reports it (nil when it printed none).
    private func registration(_ dir: LedgerDir, _ email: String) throws -> String? {
        let result = try dir.register(email: email)
        return (try? parseObject(result.stdout))?["status"] as? String
    }

    /// `bytes` with new checksums, as ledger writes them, in place of the old ones.
    private func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let table = Array(bytes.dropLast(WritersIndex.trailerSize))
        let trailer = table.withUnsafeBytes { raw in
            WritersIndex.checksums(header: UnsafeRawBufferPointer(rebasing: raw[0..<4096]), slots: UnsafeRawBufferPointer(rebasing: raw[4096...]))
        }
        return table + trailer
    }

    @Test func aWriterWithoutTheIndexFoldsOnlyTheLinesAfterItsCheckpoint() throws {
        try withLedgerDir { dir in
            let (_, seq) = try populated(dir)
            let intact = splitLines(try dir.logBytes())
            // The first line, covered by the checkpoint, damaged in place: a writer that read it would refuse.
            try damageLine(dir.logPath, line: 0)
            try FileSystem.remove(dir.logPath + ".index")
            #expect(try registration(dir, "user6@example.com") == "registered")
            // The email rule holds from the checkpoint: user1's email (line 1) is still taken.
            #expect(try registration(dir, "user1@example.com") == "failed")
            #expect(splitLines(try dir.logBytes()).count > seq)
            // The first line put back: the index the writers built from the checkpoint and the tail
            // is what a fold of the whole log gives (`verify` compares them).
            var lines = splitLines(try dir.logBytes())
            lines[0] = intact[0]
            try writeBytes(lines.flatMap { $0 }, to: dir.logPath)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
        }
    }

    /// The file's (device, inode), nil when there is none.
    private func identity(_ path: String) -> [UInt64]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let device = attributes[.systemNumber] as? Int, let inode = attributes[.systemFileNumber] as? Int else { return nil }
        return [UInt64(device), UInt64(inode)]
    }

    /// A writer without the index takes the checkpoint over as its index file instead of copying
    /// it (the copy grows with the history); until the next checkpoint a writer that must start
    /// over folds the whole log, and the next checkpoint is saved as before. A checkpoint that
    /// another name links to is copied, never written through.
    @Test func theCheckpointBecomesTheIndexUnlessAnotherNameLinksToIt() throws {
        try withLedgerDir { dir in
            let (path, _) = try populated(dir)
            let index = dir.logPath + ".index"
            let checkpoint = try #require(identity(path))
            try FileSystem.remove(index)
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(identity(path) == nil, "the checkpoint was taken over")
            #expect(identity(index) == checkpoint)
            #expect(try registration(dir, "user1@example.com") == "failed")
            #expect(try dir.run(["verify", "--json"]).status == 0)
            // With neither file, the next writer folds the whole log; checkpoints are saved again.
            try FileSystem.remove(index)
            for n in 7...10 { #expect(try dir.register(email: "user\(n)@example.com", env: every).status == 0) }
            let saved = try #require(identity(path))
            #expect(try dir.run(["verify", "--json"]).status == 0)

            // A hard link to the checkpoint: copied, both names left as they were.
            let other = dir.path + "/elsewhere"
            #expect(link(path, other) == 0)
            let before = try readBytes(other)
            try FileSystem.remove(index)
            #expect(try registration(dir, "user11@example.com") == "registered")
            #expect(identity(path) == saved && identity(index) != saved)
            #expect(try readBytes(other) == before)
            #expect(try registration(dir, "user7@example.com") == "failed")
            #expect(try dir.run(["verify", "--json"]).status == 0)
        }
    }

    /// A checkpoint readable by others (mode 0644, as a restore with `cp` over an older file leaves
    /// it) is copied into an index of mode 0600, never taken over; one whose size is not what its
    /// header says (grown, or made sparse) is refused before its bytes are read, and the index
    /// rebuilt from the log.
    @Test(arguments: ["mode 0644", "grown"])
    func aCheckpointThatCannotBeTakenOverIsCopiedOrRefused(_ case: String) throws {
        try withLedgerDir { dir in
            let (path, _) = try populated(dir)
            let index = dir.logPath + ".index"
            if `case` == "mode 0644" {
                #expect(chmod(path, 0o644) == 0)
            } else {
                #expect(truncate(path, off_t(try readBytes(path).count + 48 * 4096)) == 0)
            }
            let before = try readBytes(path)
            try FileSystem.remove(index)
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(try registration(dir, "user1@example.com") == "failed")
            let attributes = try FileManager.default.attributesOfItem(atPath: index)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(identity(index) != identity(path))
            #expect(try readBytes(path) == before, "left as it was")
            #expect(try dir.run(["verify", "--json"]).status == 0)
        }
    }

    /// A checkpoint grown to a capacity that its header, its size and its checksums all agree on,
    /// but that the events it covers could never have filled, is refused before its bytes are read
    /// (a table sized to hundreds of GB held the writers' lock while it was checksummed); and a live
    /// index whose capacity is forged to 2^62 is replaced, never a trap in a writer or in `verify`.
    @Test func aForgedCapacityIsRefusedWithoutReadingTheTableOrTrapping() throws {
        try withLedgerDir { dir in
            let (path, _) = try populated(dir)
            let index = dir.logPath + ".index"
            var bytes = try readBytes(path)
            let table = Array(bytes.dropLast(WritersIndex.trailerSize))
            let capacity = table.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 144, as: Int64.self)) }
            #expect(capacity == WritersIndex.initialCapacity, "a log of a few events fills the first size")
            // Twice the slots, every one of them empty: header, size and checksums agree.
            var grown = table + [UInt8](repeating: 0, count: capacity * WritersIndex.slotSize)
            grown.withUnsafeMutableBytes { $0.storeBytes(of: Int64(capacity * 2), toByteOffset: 144, as: Int64.self) }
            bytes = resealed(grown + [UInt8](repeating: 0, count: WritersIndex.trailerSize))
            try writeBytes(bytes, to: path)
            #expect(chmod(path, 0o600) == 0)
            try FileSystem.remove(index)
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(try readBytes(path) == bytes, "refused: neither taken over nor changed")
            #expect(try readBytes(index).count == WritersIndex.headerSize + capacity * WritersIndex.slotSize)
            #expect(try registration(dir, "user1@example.com") == "failed")

            // The live index's capacity forged to 2^62.
            var live = try readBytes(index)
            live.withUnsafeMutableBytes { $0.storeBytes(of: Int64(1) << 62, toByteOffset: 144, as: Int64.self) }
            try writeBytes(live, to: index)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0 && !checked.stderr.contains("Fatal error"), "\(checked)")
            #expect(try registration(dir, "user7@example.com") == "registered")
            #expect(try registration(dir, "user2@example.com") == "failed")
            #expect(try dir.run(["verify", "--json"]).status == 0)
        }
    }

    @Test(arguments: ["broken checksum", "another head"])
    func aForgedIndexCheckpointIsRefusedAndTheIndexRebuiltFromTheLog(_ forgery: String) throws {
        try withLedgerDir { dir in
            let (path, _) = try populated(dir)
            var bytes = try readBytes(path)
            if forgery == "broken checksum" {
                // A slot's byte changed, the checksums left as they were.
                let slot = try #require(stride(from: 4096, to: bytes.count - WritersIndex.trailerSize, by: 48).first { bytes[$0] == 7 })
                bytes[slot + 4] ^= 1
            } else {
                // The covered line's hash (header offset 72) changed, checksummed again: the log holds no such line.
                bytes[72] = bytes[72] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
                bytes = resealed(bytes)
            }
            try writeBytes(bytes, to: path)
            let intact = try dir.logBytes()
            try damageLine(dir.logPath, line: 0)
            try FileSystem.remove(dir.logPath + ".index")
            // Refused: the writer reads the whole log, and finds the damage.
            let refused = try dir.register(email: "user6@example.com")
            #expect(refused.status != 0 && refused.stderr.contains("damaged"), "\(refused)")
            try writeBytes(intact, to: dir.logPath)
            if forgery == "another head" {
                // A checkpoint that recorded another hash for a line the log holds is evidence of a
                // rewrite, not staleness: writers refuse and verify says so, until the operator accepts the log.
                let alarm = try dir.register(email: "user6@example.com")
                #expect(alarm.status == 1 && alarm.stderr.contains("recover --accept-history"), "\(alarm)")
                let reported = try dir.run(["verify", "--json"])
                #expect(reported.status == 1 && reported.stdout.contains(#""kind":"history-rewritten""#), "\(reported)")
                #expect(try dir.run(["recover", "--accept-history"]).status == 0)
            }
            #expect(try registration(dir, "user6@example.com") == "registered")
            #expect(try registration(dir, "user1@example.com") == "failed")
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
        }
    }

    @Test func aResealedIndexCheckpointThatDisagreesWithTheLogIsACacheMismatch() throws {
        try withLedgerDir { dir in
            let (path, seq) = try populated(dir)
            // An account slot's status (tag 7, +4) changed and the copy checksummed again, as ledger writes it.
            var bytes = try readBytes(path)
            let slot = try #require(stride(from: 4096, to: bytes.count - WritersIndex.trailerSize, by: 48).first { bytes[$0] == 7 })
            bytes[slot + 4] = bytes[slot + 4] == 1 ? 2 : 1
            try writeBytes(resealed(bytes), to: path)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 1, "\(checked)")
            let problems = try parseObject(checked.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(problems.map { $0["kind"] as? String } == ["cache-mismatch"], "\(checked)")
            #expect(problems.first?["line"] as? Int == seq)
            #expect((problems.first?["message"] as? String)?.contains(path) == true, "\(checked)")
            #expect(try readBytes(path) == resealed(bytes), "verify never changes the checkpoint")
        }
    }
}
