import Foundation
import Testing

/// `ledger-bench generate`: a small log that verifies, has every event type and about 15% failed
/// registrations, and is the same bytes for the same seed. No timing here: that is `ledger-bench run`
/// and `Tests/Bench/compare.sh` (Docs/Performance.md).
struct BenchGeneratorTests {
    /// The built `ledger-bench` (`swift build` and `swift test` build every executable of the package).
    private var bench: String { "\(Paths.binaries)/ledger-bench" }

    @Test func generatedLogVerifiesAndHasTheDocumentedMix() throws {
        try #require(FileManager.default.isExecutableFile(atPath: bench), "no ledger-bench at \(bench): run `swift build` first")
        try withTempDirectory("ledger-bench") { folder in
            let log = "\(folder)/bench.jsonl"
            let generated = try run(bench, ["generate", "--events", "2000", "--out", log, "--seed", "3"])
            #expect(generated.status == 0, "\(generated)")

            let verified = try ledger("verify", log, "--json")
            #expect(verified.status == 0, "\(verified)")
            #expect(verified.stdout.contains(#""ok":true"#) && verified.stdout.contains(#""events":2000"#), "\(verified)")
            let independent = try run(Paths.python3, [Paths.repo("Events/tools/verify_log.py"), log])
            #expect(independent.status == 0 && independent.stdout.hasPrefix("ok 2000 2000 "), "\(independent)")

            // Every type of the catalogue appears.
            let text = try String(contentsOfFile: log, encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.count == 2000)
            var types: [String: Int] = [:]
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                types[object["type"] as? String ?? "?", default: 0] += 1
            }
            let catalogue = ["AccountCreated", "ImageStored", "ProfileWritten", "Failed", "ImageDeleted", "AccountDeleted",
                             "SessionStarted", "SessionEnded", "SignInFailed"]
            #expect(Set(types.keys) == Set(catalogue), "\(types)")

            // About 15% of registrations fail, and every registration is settled (none in progress).
            let replayed = try ledger("replay", log, "--json")
            #expect(replayed.status == 0, "\(replayed)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(replayed.stdout.utf8)) as? [String: Any])
            let outcomes = try #require(summary["registrations"] as? [String: Int])
            let total = outcomes.values.reduce(0, +)
            let failed = outcomes["rejected", default: 0] + outcomes["compensated", default: 0]
            #expect(total > 100 && outcomes["in-progress"] == 0 && outcomes["compensation-pending"] == 0, "\(outcomes)")
            #expect(Double(failed) / Double(total) > 0.08 && Double(failed) / Double(total) < 0.22, "\(outcomes)")
            #expect(outcomes["compensated", default: 0] > 0 && outcomes["rejected", default: 0] > 0, "\(outcomes)")

            // Deterministic: the same seed gives the same bytes.
            let again = "\(folder)/again.jsonl"
            #expect(try run(bench, ["generate", "--events", "2000", "--out", again, "--seed", "3"]).status == 0)
            #expect(FileManager.default.contentsEqual(atPath: log, andPath: again))
        }
    }

    @Test func helpAfterAnySubcommandPrintsTheUsageAndSucceeds() throws {
        try #require(FileManager.default.isExecutableFile(atPath: bench), "no ledger-bench at \(bench): run `swift build` first")
        for command in [["--help"], ["generate", "--help"], ["append", "--count", "5", "-h"], ["run", "--help"], ["registrations", "--help"]] {
            let result = try run(bench, command)
            #expect(result.status == 0 && result.stdout.contains("usage: ledger-bench generate") && result.stderr.isEmpty, "\(command): \(result)")
        }
        let wrong = try run(bench, ["append", "--bogus", "1"])
        #expect(wrong.status == 2 && wrong.stderr.contains("unknown option --bogus"), "\(wrong)")
    }
}
