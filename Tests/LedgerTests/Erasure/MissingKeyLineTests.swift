import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
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

    /// `verify`'s first read ended before an account delete's lines, whose key was destroyed
    /// before the read asked for it: the key reads as erased, and no erasure event the read saw
    /// names it. The second read goes on to the log's end, finds the erasure, and reports nothing;
    /// a key missing without one (the other account's, its slot wiped) is still reported.
    @Test func aKeyDestroyedByAnErasureAfterTheReadIsNotLost() throws {
        try withLedgerDir { dir in
            let password = "correct horse battery"
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: password).status == 0)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: password).stdout)["uid"] as? String)
            let read = try dir.logBytes()
            #expect(try dir.run(["account", "delete", ben], stdin: password + "\n").status == 0)
            // The lines the first read saw, with the key store as it is now.
            let prefix = dir.path + "/prefix.jsonl"
            try writeBytes(read, to: prefix)
            func firstRead() throws -> MissingKeys {
                let watch = MissingKeys(KeyRing(directory: dir.path))
                var checker = ChainChecker(opener: watch)
                try LogScanner.scan(try FileDescriptor(path: prefix, flags: O_RDONLY), checker: &checker) { _ in true }
                return watch
            }
            let watch = try firstRead()
            let benSubject = SubjectID.account(try #require(UUIDBits(uuid: ben)))
            #expect(watch.missing[benSubject] != nil, "the first read found Ben's key erased")
            #expect(try watch.problems(.file(dir.logPath), erased: []).isEmpty)
            #expect(try watch.problems(.file(prefix), erased: []).map(\.kind) == [.missingKey], "without the erasure's lines it is lost")
        }
    }

    /// One member's ciphertext changed and the log chained again: the account's key still opens
    /// its other members, so the problem is on the changed member's line (not the subject's first)
    /// and says its bytes were changed.
    @Test func aChangedMemberIsNamedOnItsOwnLine() throws {
        try withLedgerDir { dir in
            let uid = try #require(try parseObject(try dir.register(email: "ann@example.com", username: "Ann", password: "correct horse 1").stdout)["uid"] as? String)
            var envelopes = try LogRewriting.envelopes(try dir.logBytes())
            let subject = "account-" + uid
            // Every line with a member of Ann's; the last one's userName changed (its Base64 still canonical).
            let lines = envelopes.indices.filter { i in
                envelopes[i].data.members.contains { if case .object(let o) = $0.value { o["subject"]?.stringValue == subject } else { false } }
            }
            try #require(lines.count >= 2, "Ann's members are on two lines at least")
            let changed = try #require(lines.last)
            guard case .object(var member)? = envelopes[changed].data["userName"], let text = member["ciphertext"]?.stringValue else {
                Issue.record("no encrypted userName on line \(changed + 1)")
                return
            }
            let first = text.first == "A" ? "B" : "A"
            member["ciphertext"] = .string(first + text.dropFirst())
            envelopes[changed].data["userName"] = .object(member)
            try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
            for cache in ["events.jsonl.index", "events.jsonl.index.checkpoint", "events.jsonl.checkpoint"] {
                try? FileManager.default.removeItem(atPath: dir.path + "/" + cache)
            }

            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.count == 1 && problems.first?["kind"] as? String == "missing-key", "\(problems)")
            #expect(problems.first?["line"] as? Int == changed + 1, "on the changed line, not line \(lines[0] + 1): \(problems)")
            #expect((problems.first?["message"] as? String)?.contains("its bytes were changed") == true, "\(problems)")
            #expect(!verified.stdout.contains("Ann") && !verified.stdout.contains("ann@"))
            let summary = try dir.run(["verify"])
            #expect(summary.stdout.contains("NOT INTACT: first problem on line \(changed + 1) (missing-key)"), "changed data is no intact log: \(summary)")
        }
    }

    /// A lost key store hides no evidence the Merkle tree's state holds: its edited record is named
    /// beside every `missing-key`.
    @Test func aLostKeyHidesNoTreeEvidence() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "ann@example.com", username: "Ann", password: "correct horse 1")
            _ = try dir.register(email: "ben@example.com", username: "Ben", password: "correct horse 2")
            #expect(try dir.run(["head"]).status == 0)  // the tree's state, made
            let position = Int(MerkleNodeIndex.position(level: 0, index: 0))
            try flipByte(treePath(dir), at: 88 + 40 * position)  // leaf 0's record (line 1), its checksum left as it was
            try FileManager.default.removeItem(atPath: dir.path + "/events.keys")
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            let kinds = Set(problems.compactMap { $0["kind"] as? String })
            #expect(kinds == ["missing-key", "cache-mismatch"], "\(problems)")
            #expect(problems.contains { $0["kind"] as? String == "cache-mismatch" && ($0["message"] as? String)?.contains(treePath(dir)) == true })
        }
    }
}
