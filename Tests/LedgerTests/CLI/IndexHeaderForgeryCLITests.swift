import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

/// The numbers in the writers' index header that writers size the table and space its checkpoints
/// by — its count of slots in use and its last checkpoint's seq — forged to what no table holds:
/// writers do not trap (they rebuild, or save a checkpoint), and `verify` names a copy writers would
/// use that says them (from an attack that made every later `register` and `login` trap).
@Suite struct IndexHeaderForgeryCLITests {
    /// `bytes` with the Int64 at `offset` set to `value`.
    private func setting(_ bytes: [UInt8], _ offset: Int, to value: Int64) -> [UInt8] {
        var bytes = bytes
        withUnsafeBytes(of: value) { bytes.replaceSubrange(offset..<(offset + 8), with: $0) }
        return bytes
    }

    private func registered(_ dir: LedgerDir, _ email: String) throws -> Bool {
        let result = try dir.register(email: email)
        return result.status == 0 && ((try? parseObject(result.stdout))?["status"] as? String) == "registered"
    }

    /// A count of slots in use beyond the capacity (Int64.max, or negative), in the carried copy of
    /// the index re-sealed and in the live index: no writer uses that table, and every register works.
    @Test(arguments: [Int64.max, -(1 << 62)])
    func anImpossibleCountIsNotUsed(_ count: Int64) throws {
        try withLedgerDir { dir in
            for n in 1...5 { #expect(try registered(dir, "user\(n)@example.com")) }
            #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "4"]).status == 0)
            let path = dir.logPath + ".checkpoint"
            let range = try #require(CheckpointIndexSection.section(inCheckpoint: path))
            var bytes = try readBytes(path)
            let table = setting(Array(bytes[range.lowerBound..<(range.upperBound - WritersIndex.trailerSize)]), 152, to: count)
            bytes.replaceSubrange(range, with: CarriedIndexCLITests.sealed(table))
            try writeBytes(bytes, to: path)
            try FileSystem.remove(dir.logPath + ".index")
            #expect(try registered(dir, "user6@example.com"))
            #expect(try registered(dir, "user7@example.com"))
            #expect(!(try registered(dir, "user1@example.com")), "the email rule holds from the log")
            // The live index forged the same way.
            let index = dir.logPath + ".index"
            try writeBytes(setting(try readBytes(index), 152, to: count), to: index)
            #expect(try registered(dir, "user8@example.com"))
            #expect(try dir.login(email: "user8@example.com", password: "correct horse 1").status == 0)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 0, "\(checked)")
        }
    }

    /// A live index whose count is possible but not what it holds, or whose last checkpoint's seq is
    /// no line it covers: writers go on (a checkpoint is due), and `verify` names the header.
    @Test(arguments: ["count", "checkpoint seq low", "checkpoint seq high"])
    func aForgedHeaderNumberIsReported(_ field: String) throws {
        try withLedgerDir { dir in
            for n in 1...3 { #expect(try registered(dir, "user\(n)@example.com")) }
            let index = dir.logPath + ".index"
            let bytes = try readBytes(index)
            let held = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 152, as: Int64.self) }
            let forged = switch field {
            case "count": setting(bytes, 152, to: held - 1)
            case "checkpoint seq low": setting(bytes, 184, to: Int64.min)
            default: setting(bytes, 184, to: Int64.max)
            }
            try writeBytes(forged, to: index)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status != 0)
            #expect(checked.stdout.contains("cache-mismatch") && checked.stdout.contains(field == "count" ? "its header counts" : "last checkpoint seq"),
                    "\(checked)")
            #expect(try registered(dir, "user4@example.com"))
            #expect(try dir.login(email: "user4@example.com", password: "correct horse 1").status == 0)
        }
    }
}
