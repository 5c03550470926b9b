import Foundation
import Testing

/// `ledger-bench registrations --processes N`: N processes register into one store at once, and
/// every registration of every process lands, completed, in one log that verifies. No timing here.
struct BenchRegistrationProcessesTests {
    /// The built `ledger-bench` (`swift build` and `swift test` build every executable of the package).
    private var bench: String { "\(Paths.binaries)/ledger-bench" }

    @Test func everyProcessRegistersIntoTheOneStore() throws {
        try #require(FileManager.default.isExecutableFile(atPath: bench), "no ledger-bench at \(bench): run `swift build` first")
        try withTempDirectory("ledger-bench-processes") { folder in
            let result = try run(bench, ["registrations", "--count", "4", "--processes", "3", "--dir", folder])
            #expect(result.status == 0 && result.stdout.contains("run 1: 12 registrations (3 processes)"), "\(result)")
            // One untimed registration by the parent, one by each process, then 4 each: 16, three events apiece.
            let log = "\(folder)/registrations-1/data/events.jsonl"
            let replayed = try ledger("replay", log, "--json")
            #expect(replayed.status == 0, "\(replayed)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(replayed.stdout.utf8)) as? [String: Any])
            #expect(summary["events"] as? Int == 48, "\(replayed.stdout)")
            #expect((summary["registrations"] as? [String: Int])?["completed"] == 16, "\(replayed.stdout)")
            #expect((summary["users"] as? [String: Int])?["active"] == 16, "\(replayed.stdout)")
        }
    }
}
