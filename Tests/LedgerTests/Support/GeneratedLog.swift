import Foundation
import Testing

// MARK: - GeneratedLog

/// A realistic v1 log written by `ledger-bench generate` (every event type, escapes, non-ASCII names).
enum GeneratedLog {
    /// Writes `events` events generated from `seed` to `<folder>/bench.jsonl`; returns its path.
    static func make(in folder: String, events: Int, seed: Int) throws -> String {
        let bench = "\(Paths.binaries)/ledger-bench"
        try #require(FileManager.default.isExecutableFile(atPath: bench), "no ledger-bench at \(bench): run `swift build` first")
        let log = "\(folder)/bench.jsonl"
        let generated = try run(bench, ["generate", "--events", String(events), "--out", log, "--seed", String(seed)])
        try #require(generated.status == 0, "\(generated)")
        return log
    }
}
