import Foundation
import Testing

// `ledger migrate` and `ledger verify --migrated-from` through the built binary: the shipped data
// version 1 samples (copied, never changed) migrate into folders whose views read as their sources,
// whose logs verify (also with Events/tools/verify_log.py) and hold the old events event for event,
// encrypted; erasure works there; a changed old event is named; and every refusal leaves nothing.

@Suite struct MigrateCLITests {
    /// The shipped samples of data version 1.
    private static let samples = ["demo", "lifecycle"]

    /// A copy of sample `name` in `path/old` (its log and images), as a `LedgerDir`.
    private static func copySample(_ name: String, into path: String) throws -> LedgerDir {
        try FileManager.default.copyItem(atPath: Paths.repo("Events/samples/\(name)"), toPath: path + "/old")
        return LedgerDir(path: path + "/old")
    }

    /// `value` with every `seq` of the `audit --json` lists that name one lowered by `by` (a
    /// migrated log's seqs are its source's plus one: its first line is the migration).
    private static func auditShifted(_ value: Any, by shift: Int) -> [String: Any] {
        var audit = value as? [String: Any] ?? [:]
        for list in ["accountChanges", "sessionsRevoked"] {
            audit[list] = (audit[list] as? [[String: Any]] ?? []).map { row in
                var row = row
                row["seq"] = (row["seq"] as? Int ?? 0) - shift
                return row
            }
        }
        return audit
    }

    /// `value` as JSON text with sorted keys, to compare parsed documents.
    private static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    /// The entries of `path` that a migration cut short would have left.
    private static func leftovers(in path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.contains(".migrating-") }
    }

    /// Rewrites line `number` of the log at `path` with `old` replaced by `new` and chains every line
    /// from it again (its `prev` and `hash`), so the log verifies with the changed value.
    private static func changeAndRechain(_ path: String, line number: Int, _ old: String, _ new: String) throws {
        let script = """
        import hashlib, re, sys
        path, n, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        lines = open(path, encoding="utf-8").read().split("\\n")[:-1]
        prev = None
        for i in range(n - 1, len(lines)):
            body = lines[i][:lines[i].rindex(',"hash":"')]
            if i == n - 1:
                assert old in body, "the value is not on that line"
                body = body.replace(old, new)
            if prev:
                body = re.sub(r'"prev":"[0-9a-f]{64}"$', '"prev":"' + prev + '"', body)
            prev = hashlib.sha256(body.encode("utf-8")).hexdigest()
            lines[i] = body + ',"hash":"' + prev + '"}'
        open(path, "w", encoding="utf-8").write("\\n".join(lines) + "\\n")
        """
        let result = try run(Paths.python3, ["-c", script, path, String(number), old, new])
        try #require(result.status == 0, "\(result)")
    }

    @Test(arguments: samples)
    func aMigratedSampleReadsAsItsSource(_ sample: String) throws {
        try withTempDirectory("ledger-migrate") { path in
            let old = try Self.copySample(sample, into: path)
            let new = LedgerDir(path: path + "/new")
            let oldVerified = try parseObject(try old.run(["verify", "--json"]).stdout)
            let oldHead = try #require(oldVerified["anchor"] as? String)
            let oldCount = try #require(oldVerified["events"] as? Int)

            let migrated = try ledger("migrate", "--from", old.logPath, "--data", new.path, "--json")
            try #require(migrated.status == 0, "\(migrated)")
            let report = try parseObject(migrated.stdout)
            #expect(report["status"] as? String == "migrated")
            #expect(report["events"] as? Int == oldCount)
            #expect(report["fromHead"] as? String == oldHead)
            #expect(report["data"] as? String == new.path)
            #expect(Self.leftovers(in: path).isEmpty)

            // The views read as the old log's.
            for command in [["users"], ["sessions"], ["sessions", "--active"]] {
                #expect(try Self.canonical(old.json(command)) == Self.canonical(new.json(command)), "\(command) differs after the migration")
            }
            let auditBefore = try old.run(["audit", "--json"]), auditAfter = try new.run(["audit", "--json"])
            #expect(auditBefore.status == auditAfter.status)
            #expect(try Self.canonical(Self.auditShifted(parseJSON(auditBefore.stdout), by: 0))
                    == Self.canonical(Self.auditShifted(parseJSON(auditAfter.stdout), by: 1)))

            // The new log verifies, here and with the independent tool, and holds the old events.
            let verified = try parseObject(try new.run(["verify", "--json"]).stdout)
            #expect(verified["ok"] as? Bool == true)
            #expect(verified["anchor"] as? String == report["head"] as? String)
            let tool = try pythonTool("verify_log.py", [new.logPath])
            #expect(tool.status == 0, "\(tool)")
            let checked = try new.run(["verify", "--migrated-from", old.logPath, "--json"])
            #expect(checked.status == 0, "\(checked)")
            let from = try parseObject(checked.stdout)["migratedFrom"] as? [String: Any]
            #expect(from?["events"] as? Int == oldCount && from?["erased"] as? Int == 0 && from?["fromHead"] as? String == oldHead)

            let before = try old.events(), after = try new.events()
            try #require(after.count == before.count + 1)
            #expect(after[0]["type"] as? String == "LogMigrated")
            #expect((after[0]["stream"] as? String)?.hasPrefix("migration-") == true)
            #expect((after[0]["data"] as? [String: Any])?["fromHead"] as? String == oldHead)
            for (was, now) in zip(before, after.dropFirst()) {
                for member in ["id", "type", "stream", "at"] { #expect(was[member] as? String == now[member] as? String) }
                #expect(was["batch"] as? [Int] == now["batch"] as? [Int])
            }
            // No email of the old log is in the new one's bytes: personal members are encrypted.
            let emails = Set(try old.data(of: "AccountCreated").compactMap { $0["email"] as? String })
            let bytes = String(decoding: try new.logBytes(), as: UTF8.self)
            #expect(!emails.isEmpty && emails.allSatisfy { !bytes.contains($0) })
            #expect(after.contains { $0["v"] as? Int == 2 })
        }
    }

    @Test func verifyMigratedFromNamesTheFirstChangedEvent() throws {
        try withTempDirectory("ledger-migrate") { path in
            let old = try Self.copySample("demo", into: path)
            let new = LedgerDir(path: path + "/new")
            try #require(try ledger("migrate", "--from", old.logPath, "--data", new.path).status == 0)
            // A copy of the old log whose first AccountCreated has another email, chained again.
            let events = try old.events()
            let index = try #require(events.firstIndex { $0["type"] as? String == "AccountCreated" })
            let email = try #require((events[index]["data"] as? [String: Any])?["email"] as? String)
            let changed = path + "/changed.jsonl"
            try FileManager.default.copyItem(atPath: old.logPath, toPath: changed)
            try Self.changeAndRechain(changed, line: index + 1, "\"email\":\"\(email)\"", "\"email\":\"x\(email)\"")
            #expect(try ledger("verify", changed).status == 0)

            let result = try new.run(["verify", "--migrated-from", changed, "--json"])
            #expect(result.status == 1, "\(result)")
            let report = try parseObject(result.stdout)
            let problem = try #require((report["problems"] as? [[String: Any]])?.last)
            #expect(problem["kind"] as? String == "migration-mismatch")
            #expect(problem["line"] as? Int == index + 2)
            #expect((problem["message"] as? String)?.contains("data once decrypted") == true)
            let human = try new.run(["verify", "--migrated-from", changed])
            #expect(human.status == 1 && human.stdout.contains("migration-mismatch"), "\(human)")

            // The changed log migrated is told from the original the same way.
            let other = LedgerDir(path: path + "/other")
            try #require(try ledger("migrate", "--from", changed, "--data", other.path).status == 0)
            let again = try parseObject(try other.run(["verify", "--migrated-from", old.logPath, "--json"]).stdout)
            #expect((again["problems"] as? [[String: Any]])?.last?["line"] as? Int == index + 2)
            // And the untouched pair still agrees.
            #expect(try new.run(["verify", "--migrated-from", old.logPath]).status == 0)
        }
    }

    @Test func erasureWorksOnAMigratedFolder() throws {
        try withTempDirectory("ledger-migrate") { path in
            let old = try Self.copySample("demo", into: path)
            let new = LedgerDir(path: path + "/new")
            try #require(try ledger("migrate", "--from", old.logPath, "--data", new.path).status == 0)
            let users = try #require(try new.json(["users"]) as? [[String: Any]])
            let user = try #require(users.first { $0["status"] as? String == "active" })
            let uid = try #require(user["uid"] as? String), email = try #require(user["email"] as? String)

            let deleted = try new.run(["account", "delete", uid, "--json"])
            #expect(deleted.status == 0, "\(deleted)")
            #expect(try parseObject(deleted.stdout)["personalData"] as? String == "erased")
            let shown = try parseObject(try new.run(["user", uid, "--json"]).stdout)
            #expect(shown["erased"] as? Bool == true && shown["email"] is NSNull)
            #expect(try new.run(["verify"]).status == 0)
            let checked = try new.run(["verify", "--migrated-from", old.logPath, "--json"])
            #expect(checked.status == 0, "\(checked)")
            let erased = (try parseObject(checked.stdout)["migratedFrom"] as? [String: Any])?["erased"] as? Int ?? 0
            #expect(erased > 0)
            #expect(!String(decoding: try new.logBytes(), as: UTF8.self).contains(email))
        }
    }

    @Test func refusalsLeaveNothingBehind() throws {
        try withTempDirectory("ledger-migrate") { path in
            let old = try Self.copySample("lifecycle", into: path)
            func migrate(_ from: String, _ into: String, _ extra: String...) throws -> (ProcessResult, [String: Any]) {
                let result = try run(Paths.ledger, ["migrate", "--from", from, "--data", into, "--json"] + extra)
                return (result, (try? parseObject(result.stdout)) ?? [:])
            }
            // A target that holds anything.
            try FileManager.default.createDirectory(atPath: path + "/full", withIntermediateDirectories: false)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/full/notes.txt"))
            var (result, json) = try migrate(old.logPath, path + "/full")
            #expect(result.status == 1 && json["code"] as? String == "target-not-empty", "\(result)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/full") == ["notes.txt"])
            (result, json) = try migrate(old.logPath, old.path)
            #expect(result.status == 1 && json["code"] as? String == "target-not-empty", "\(result)")

            // A log of data version 2: a migrated folder's, with its key store or without it.
            let new = path + "/new"
            try #require(try migrate(old.logPath, new).0.status == 0)
            (result, json) = try migrate(new + "/events.jsonl", path + "/again")
            #expect(result.status == 1 && json["code"] as? String == "already-version-2", "\(result)")
            try FileManager.default.createDirectory(atPath: path + "/bare", withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: new + "/events.jsonl", toPath: path + "/bare/events.jsonl")
            (result, json) = try migrate(path + "/bare/events.jsonl", path + "/again")
            #expect(result.status == 1 && json["code"] as? String == "already-version-2", "\(result)")

            // A damaged log: the problem named, like verify, and no folder made.
            var bytes = try readBytes(old.logPath)
            let at = try #require(bytes.firstIndex(of: UInt8(ascii: "@")))
            bytes[at + 1] ^= 0x01
            let damaged = path + "/damaged.jsonl"
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            (result, json) = try migrate(damaged, path + "/again")
            #expect(result.status == 1 && json["code"] as? String == "damaged", "\(result)")
            #expect((json["message"] as? String)?.contains("bad-hash") == true)

            // No log, an empty log, and a PostgreSQL target.
            (result, json) = try migrate(path + "/missing.jsonl", path + "/again")
            #expect(result.status == 3 && json["code"] as? String == "no-log", "\(result)")
            try Data().write(to: URL(fileURLWithPath: path + "/empty.jsonl"))
            (result, json) = try migrate(path + "/empty.jsonl", path + "/again")
            #expect(result.status == 1 && json["code"] as? String == "empty-log", "\(result)")
            (result, _) = try migrate(old.logPath, path + "/again", "--store", "postgres://u@localhost:5432/db")
            #expect(result.status == 2 && result.stderr.contains("ledger import"), "\(result)")

            #expect(!FileManager.default.fileExists(atPath: path + "/again"))
            #expect(Self.leftovers(in: path).isEmpty)
            #expect(try readBytes(old.logPath) == readBytes(Paths.repo("Events/samples/lifecycle/events.jsonl")))
        }
    }
}
