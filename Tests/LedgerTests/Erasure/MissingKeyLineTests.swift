import Foundation
import Testing

// MARK: - MissingKeyLineTests

/// `missing-key` names, for each subject whose key is gone, the first line with a member of that
/// subject, whatever order the read's threads opened the members in: the same report every run.
@Suite struct MissingKeyLineTests {
    /// A generated log (many batches, so members are opened on several threads) migrated to data
    /// version 2, its key store then removed: every subject's problem is on its first line, and
    /// two runs print the same report.
    @Test func eachLostSubjectIsReportedOnItsFirstLine() throws {
        try withTempDirectory("missing-key-lines") { folder in
            let v1 = try GeneratedLog.make(in: folder, events: 20_000, seed: 7)
            let dir = LedgerDir(path: folder + "/data")
            let migrated = try dir.run(["migrate", "--from", v1])
            try #require(migrated.status == 0, "\(migrated)")
            try FileManager.default.removeItem(atPath: dir.path + "/events.keys")
            let first = try dir.run(["verify", "--json"]), second = try dir.run(["verify", "--json"])
            #expect(first.status == 1 && first.stdout == second.stdout, "\(first.stdout.prefix(300)) / \(second.stdout.prefix(300))")
            let problems = try #require(try parseObject(first.stdout)["problems"] as? [[String: Any]])
            let missing = problems.filter { $0["kind"] as? String == "missing-key" }
            #expect(missing.count > 10, "\(problems.prefix(3))")
            // The first line of each subject, from the stored lines.
            var firstLine: [String: Int] = [:]
            for (n, line) in try readText(dir.logPath).split(separator: "\n").enumerated() {
                var rest = Substring(line)
                while let range = rest.range(of: "\"subject\":\"") {
                    let subject = rest[range.upperBound...].prefix { $0 != "\"" }
                    if firstLine[String(subject)] == nil { firstLine[String(subject)] = n + 1 }
                    rest = rest[range.upperBound...]
                }
            }
            for problem in missing {
                let message = try #require(problem["message"] as? String)
                let subject = try #require(message.split(separator: " ").dropFirst(3).first.map(String.init))  // "the key of SUBJECT …"
                #expect(problem["line"] as? Int == firstLine[subject], "\(subject): \(problem)")
            }
        }
    }
}
