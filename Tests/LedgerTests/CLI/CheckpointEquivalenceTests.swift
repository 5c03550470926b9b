import Foundation
import Testing

/// Checkpoints: reading a checkpoint plus the tail gives byte-identical `--json` to a replay from
/// scratch, and a checkpoint that does not match the log is ignored.
struct CheckpointEquivalenceTests {
    private let reads: [[String]] = [["replay", "--json"], ["users", "--json"], ["sessions", "--json"], ["images", "--json"],
                                     ["audit", "--json"], ["users", "--json", "--as-of", "3"]]

    private func outputs(_ dir: LedgerDir, every: String) throws -> [String] {
        try reads.map { try dir.run($0, env: ["LEDGER_CHECKPOINT_EVERY": every]).stdout }
    }

    private func populate(_ dir: LedgerDir, from: Int, to: Int) throws {
        for n in from...to {
            let image = n % 2 == 0 ? samplePNG : nil
            let env = n % 3 == 0 ? ["LEDGER_FAILPOINTS": "ProfileWritten=error"] : [:]
            _ = try dir.register(email: "cp\(n)@example.com", image: image, env: env)
        }
        _ = try dir.login(email: "cp1@example.com", password: "wrong password")
    }

    @Test func checkpointPlusTailEqualsReplayFromScratch() throws {
        try withLedgerDir { dir in
            let checkpoint = dir.path + "/events.jsonl.checkpoint"
            try populate(dir, from: 1, to: 4)
            _ = try dir.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "5"])
            #expect(FileManager.default.fileExists(atPath: checkpoint), "a whole-log read past the interval saves one")
            try populate(dir, from: 5, to: 8)
            let withCheckpoint = try outputs(dir, every: "5")
            let fromScratch = try outputs(dir, every: "0")
            #expect(withCheckpoint == fromScratch)
            #expect(withCheckpoint[0].contains("\"digest\""))
        }
    }

    @Test func aCheckpointThatDoesNotMatchTheLogIsIgnored() throws {
        try withLedgerDir { dir in
            try withLedgerDir { other in
                try populate(other, from: 1, to: 5)
                _ = try other.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "2"])
                try populate(dir, from: 1, to: 3)
                let truth = try outputs(dir, every: "0")
                // A foreign checkpoint (other hashes), then a garbage one: both ignored.
                try FileManager.default.copyItem(atPath: other.path + "/events.jsonl.checkpoint",
                                                 toPath: dir.path + "/events.jsonl.checkpoint")
                #expect(try outputs(dir, every: "2") == truth)
                try Data("{\"format\":1,\"garbage\":true}".utf8).write(to: URL(fileURLWithPath: dir.path + "/events.jsonl.checkpoint"))
                #expect(try outputs(dir, every: "2") == truth)
            }
        }
    }
}
