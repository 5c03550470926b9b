import Foundation
@testable import LedgerDomain
import LedgerKit
import Testing

// MARK: - SealedRefusedCheckpointCLITests

/// A checkpoint whose seal holds but whose views no read takes (a count no log folds to) decides
/// nothing, since every read folds the log instead, but it was sealed that way: `verify` reports it
/// as a `cache-mismatch` naming the file. A checkpoint whose seal does not hold is damage, which
/// reads replace, and no problem. Through the built `ledger`.
@Suite struct SealedRefusedCheckpointCLITests {
    /// A folder of two registrations and the rows `users --json` prints from the log alone.
    private func populated(_ dir: LedgerDir) throws -> String {
        _ = try dir.register(email: "alice@example.com", username: "Alice")
        _ = try dir.register(email: "bob@example.com", username: "Bob")
        return try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"]).stdout
    }

    /// Counts more refused sign-ins of one email than the views have events: no log folds to that.
    private static func impossibleRefusals(_ views: inout LedgerViews) {
        for _ in 0...views.events { views.signIns.countRefusal("mallory@example.com") }
    }

    /// Problems `verify --json` reports.
    private func problems(_ dir: LedgerDir) throws -> (status: Int32, problems: [[String: Any]]) {
        let verified = try dir.run(["verify", "--json"])
        return (verified.status, try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? [])
    }

    /// The checkpoint beside `dir`'s log is not judged, reads print `fromTheLog`, and verify passes.
    private func expectIgnoredAndNoProblem(_ dir: LedgerDir, _ fromTheLog: String) throws {
        #expect(Checkpoint.sealedRefusal(forLog: dir.logPath) == nil)
        #expect(try dir.run(["users", "--json"]).stdout == fromTheLog)
        #expect(try problems(dir).status == 0)
    }

    @Test func aSealedCheckpointNoReadTakesIsACacheMismatch() throws {
        try withLedgerDir { dir in
            let fromTheLog = try populated(dir)
            // Sealed as ledger seals one, with more refused sign-ins of an email than the log has events.
            try CacheForgery.checkpoint(dir, edit: { $0 }, adjust: Self.impossibleRefusals)
            #expect(Checkpoint.sealedRefusal(forLog: dir.logPath) == "more refused sign-ins than events")
            #expect(try dir.run(["users", "--json"]).stdout == fromTheLog, "no read takes it")
            let (status, found) = try problems(dir)
            #expect(status == 1 && found.count == 1, "\(found)")
            #expect(found.first?["kind"] as? String == "cache-mismatch")
            let message = found.first?["message"] as? String ?? ""
            #expect(message.contains("events.jsonl.checkpoint is sealed but holds what no log folds to") && message.contains("remove it"), "\(message)")
            // Removed, as the message says: nothing to report.
            try FileManager.default.removeItem(atPath: Checkpoint.path(forLog: dir.logPath))
            #expect(try problems(dir).status == 0)
        }
    }

    @Test func aCheckpointWhoseSealDoesNotHoldIsNoProblem() throws {
        try withLedgerDir { dir in
            let fromTheLog = try populated(dir)
            try CacheForgery.checkpoint(dir, edit: { $0 }, adjust: Self.impossibleRefusals)
            let path = Checkpoint.path(forLog: dir.logPath)
            var bytes = try readBytes(path)
            bytes[8 + 16 + 4] ^= 1  // after the magic and the line's two offsets, in the views: the seal no longer holds
            try writeBytes(bytes, to: path)
            try expectIgnoredAndNoProblem(dir, fromTheLog)
        }
    }

    /// A checkpoint an older build saved (another version inside its seal) is ignored and replaced
    /// by reads, as every build does with one it does not read: no problem either.
    @Test func anOlderBuildsCheckpointIsNoProblem() throws {
        try withLedgerDir { dir in
            let fromTheLog = try populated(dir)
            // Without the writers' index files, the checkpoint carries no copy of the index after its digest.
            for cache in [".index", ".index.checkpoint"] where FileSystem.exists(dir.logPath + cache) {
                try FileManager.default.removeItem(atPath: dir.logPath + cache)
            }
            #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).stdout == fromTheLog)
            let path = Checkpoint.path(forLog: dir.logPath)
            var bytes = try readBytes(path)
            let version = 8 + 16  // after the magic and the line's two offsets: "LEDGERV8"
            #expect(Array(bytes[version..<(version + 8)]) == Array("LEDGERV8".utf8))
            bytes[version + 7] = UInt8(ascii: "7")
            // Sealed again, as the older build sealed its own (no index section: a folder without writers' index files).
            let digestAt = bytes.count - 64
            bytes.replaceSubrange(digestAt..., with: Array(SHA256.hex(Array(bytes[..<digestAt])).utf8))
            try writeBytes(bytes, to: path)
            try expectIgnoredAndNoProblem(dir, fromTheLog)
        }
    }

    @Test func aCheckpointAReadSavedIsNoProblem() throws {
        try withLedgerDir { dir in
            let fromTheLog = try populated(dir)
            #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).stdout == fromTheLog)
            #expect(FileSystem.exists(Checkpoint.path(forLog: dir.logPath)))
            #expect(Checkpoint.sealedRefusal(forLog: dir.logPath) == nil)
            #expect(try problems(dir).status == 0)
        }
    }
}
