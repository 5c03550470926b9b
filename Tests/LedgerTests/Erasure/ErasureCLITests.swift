import Foundation
import LedgerKit
import Testing

// The right to erasure through the built `ledger`, on the file store: one person's whole life,
// then `account delete`; no file under the data directory and no output of a read command holds
// anything of them (their emails, username, password hashes, or an unkeyed hash of any of those),
// while another person's data reads as before and the chain still verifies, also against a head
// recorded before the erasure.

@Suite struct ErasureCLITests {
    private static let password = "correct horse erased", newPassword = "battery staple erased"

    /// Every line of the log with its personal members decrypted by `Events/tools/decrypt_log.py`.
    private static func decrypted(_ dir: LedgerDir) throws -> [[String: Any]] {
        let result = try pythonTool("decrypt_log.py", [dir.logPath, dir.path + "/events.keys"])
        #expect(result.status == 0, "\(result)")
        return try result.stdoutLines.map { try parseObject($0) }
    }

    /// The lowercase hex SHA-256 of `text`, and of `email\0text` (the writers' index key).
    private static func hashes(_ text: String) -> [String] {
        [SHA256.hex(Array(text.utf8)), SHA256.hex(Array(("email\u{0}" + text).utf8))]
    }

    /// Every file under `path` (names included) as bytes.
    private static func everyFile(_ path: String) throws -> [(name: String, bytes: Data)] {
        let names = FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []
        return try names.compactMap { name in
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder)
            return isFolder.boolValue ? nil : (name, try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
        }
    }

    /// The places `secret` is found, in any case: in a file's name or bytes, or in a command's output.
    private static func findings(of secrets: [String], in dir: LedgerDir, outputs: [String: String]) throws -> [String] {
        var found: [String] = []
        let files = try everyFile(dir.path)
        for secret in secrets {
            let lower = secret.lowercased()
            for (name, bytes) in files {
                if name.lowercased().contains(lower) { found.append("file name \(name) holds \(secret)") }
                if String(decoding: bytes, as: UTF8.self).lowercased().contains(lower) { found.append("\(name) holds \(secret)") }
            }
            for (command, output) in outputs where output.lowercased().contains(lower) { found.append("`\(command)` prints \(secret)") }
        }
        return found
    }

    /// The outputs of every read command that could show a person.
    private static func outputs(_ dir: LedgerDir, uid: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for command in [["users"], ["users", "--json"], ["user", uid], ["user", uid, "--json"], ["user", uid, "--history"],
                        ["user", uid, "--history", "--json"], ["audit"], ["audit", "--json"], ["events"], ["events", "--json"],
                        ["sessions"], ["sessions", "--json"], ["export"], ["replay"]] {
            let result = try dir.run(command)
            out[command.joined(separator: " ")] = result.stdout + result.stderr
        }
        let report = dir.path + "/../report-\(UUID().uuidString).html"
        #expect(try dir.run(["report", "--show-emails", "--html", report]).status == 0)
        out["report --show-emails"] = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: report)
        return out
    }

    @Test func aDeletedPersonIsForgottenEverywhereOnTheFileStore() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            let first = "Erin.First@Example.com", second = "erin.second@example.org", name = "ErinTheErased"
            let other = "olive@example.com", otherName = "OliveStays"
            let registered = try dir.register(email: first, username: name, password: Self.password)
            try #require(registered.status == 0, "\(registered)")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            try #require(try dir.register(email: other, username: otherName, password: Self.password).status == 0)
            // A life: a wrong password, a sign-in, a password change, an email change, a disable and enable.
            #expect(try dir.login(email: first.lowercased(), password: "not the password").status == 1)
            #expect(try dir.login(email: first.lowercased(), password: Self.password).status == 0)
            #expect(try dir.run(["account", "change-password", "--email", first.lowercased(), "--password-stdin"],
                                stdin: Self.password + "\n" + Self.newPassword + "\n").status == 0)
            #expect(try dir.run(["account", "change-email", "--email", first.lowercased(), "--new-email", second, "--password-stdin"],
                                stdin: Self.newPassword + "\n").status == 0)
            #expect(try dir.run(["account", "disable", uid, "--reason", "Erin asked by ticket 4711"]).status == 0)
            #expect(try dir.run(["account", "enable", uid]).status == 0)

            // With the key store, decrypt_log.py gives what `users --json` prints.
            let lines = try Self.decrypted(dir)
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            let created = lines.filter { $0["type"] as? String == "AccountCreated" }.compactMap { $0["data"] as? [String: Any] }
            for user in users {
                let data = try #require(created.first { $0["uid"] as? String == user["uid"] as? String })
                let changed = lines.last { ($0["data"] as? [String: Any])?["uid"] as? String == user["uid"] as? String && $0["type"] as? String == "EmailChanged" }
                let email = (changed?["data"] as? [String: Any])?["email"] as? String ?? data["email"] as? String
                #expect(email == user["email"] as? String, "decrypted \(String(describing: email)) vs users \(user)")
            }
            // The secrets of the person to forget, read before the erasure: every password hash too.
            let hashes = lines.compactMap { line -> String? in
                let data = line["data"] as? [String: Any]
                return data?["uid"] as? String == uid ? data?["passwordHash"] as? String : nil
            }
            #expect(hashes.count == 2, "two password hashes: \(hashes)")
            let secrets = [first, second, name, "ticket 4711"] + hashes + [first.lowercased(), second].flatMap(Self.hashes)
            let recorded = try #require(try parseObject(try dir.run(["verify", "--json"]).stdout)["head"] as? [String: Any])
            let head = "\(recorded["seq"] as? Int ?? 0):\(recorded["hash"] as? String ?? "")"

            // Checks left uncounted (a process killed mid-check) keep lock files named by each email's hash.
            for email in [first.lowercased(), second] {
                let marker = PendingCheck(attempt: UUID().uuidString.lowercased(), sessionId: UUID().uuidString.lowercased()).marker
                try Data(marker).write(to: URL(fileURLWithPath: FileSignInLocks.path(directory: dir.path, email: email)))
            }
            let deleted = try dir.run(["account", "delete", uid, "--json"])
            #expect(deleted.status == 0, "\(deleted)")
            let outcome = try parseObject(deleted.stdout)
            #expect(outcome["personalData"] as? String == "erased" && outcome["email"] is NSNull, "\(deleted)")
            // A login and a registration afterwards (the caches are rebuilt) still know nothing of them.
            #expect(try dir.login(email: other, password: Self.password).status == 0)
            #expect(try dir.register(email: "later@example.com", password: Self.password).status == 0)

            let outputs = try Self.outputs(dir, uid: uid)
            let found = try Self.findings(of: secrets, in: dir, outputs: outputs)
            #expect(found.isEmpty, "\(found)")
            // The other person reads as before.
            let after = try #require(try dir.json(["users"]) as? [[String: Any]])
            #expect(after.contains { $0["email"] as? String == other && $0["userName"] as? String == otherName })
            let erased = try #require(after.first { $0["uid"] as? String == uid })
            #expect(erased["email"] is NSNull && erased["userName"] is NSNull && erased["erased"] as? Bool == true, "\(erased)")
            #expect(try dir.run(["users"]).stdout.contains("[erased]"))
            // The chain still verifies: ledger verify, verify_log.py without keys, a head recorded before.
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try pythonTool("verify_log.py", [dir.logPath]).status == 0)
            #expect(try dir.run(["verify", "--expect", head]).status == 0, "head \(head)")
            // Erasing again is refused; the audit shows who was forgotten, when and why.
            let again = try dir.run(["account", "erase", uid, "--json"])
            #expect(again.status == 1 && (try? parseObject(again.stdout)["reason"] as? String) == "already-erased", "\(again)")
            #expect(try dir.run(["audit"]).stdout.contains("personal-data-erased"))
        }
    }

    @Test func eraseIsRefusedForALiveAccountAndKeepingIsAuditedOnTheFileStore() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            let registered = try dir.register(email: "held@example.com", username: "Held", password: Self.password)
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let live = try dir.run(["account", "erase", uid, "--json"])
            #expect(live.status == 1 && (try? parseObject(live.stdout)["reason"] as? String) == "account-live", "\(live)")
            let kept = try dir.run(["account", "delete", uid, "--keep-personal-data", "--json"])
            #expect(kept.status == 0 && (try? parseObject(kept.stdout)["personalData"] as? String) == "kept", "\(kept)")
            #expect(try dir.run(["user", uid]).stdout.contains("held@example.com"), "a legal hold keeps the data readable")
            #expect(try dir.run(["audit"]).stdout.contains("personal-data-kept"))
            let erased = try dir.run(["account", "erase", uid, "--json"])
            #expect(erased.status == 0, "\(erased)")
            #expect(!(try dir.run(["user", uid]).stdout.contains("held@example.com")))
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func aVersionOneLogIsNotErasedAndSaysSo() throws {
        try withTempDirectory { path in
            // The shipped sample is data version 1: delete works as before and erase asks for migrate.
            let dir = LedgerDir(path: path + "/data")
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.demoLog, toPath: dir.logPath)
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            let live = try #require(users.first { $0["status"] as? String == "active" }?["uid"] as? String)
            let deleted = try dir.run(["account", "delete", live, "--json"])
            #expect(deleted.status == 0 && (try? parseObject(deleted.stdout)["personalData"] as? String) == "not-encrypted", "\(deleted)")
            let erase = try dir.run(["account", "erase", live, "--json"])
            #expect(erase.status == 1 && (try? parseObject(erase.stdout)["reason"] as? String) == "migrate-first", "\(erase)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/events.keys"), "a version 1 folder gets no key store")
        }
    }

    /// Checkpoints at every event, so that the folder holds every cache there is.
    private static let everyCache = ["LEDGER_CHECKPOINT_EVERY": "1"]

    /// Registers `email` (named `name`) and Olive in `dir` and reads the users, with `everyCache`;
    /// returns the uid of `email`'s account.
    private static func registerWithEveryCache(_ dir: LedgerDir, email: String, name: String) throws -> String {
        let registered = try dir.register(email: email, username: name, password: password, env: everyCache)
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        #expect(try dir.register(email: "olive@example.com", username: "Olive", password: password, env: everyCache).status == 0)
        #expect(try dir.run(["users"], env: everyCache).status == 0)
        return uid
    }

    @Test func aBackupRestoredAfterAnErasureBringsNothingBack() throws {
        try withTempDirectory { path in
            let env = Self.everyCache
            let dir = LedgerDir(path: path + "/data")
            let email = "restored.erin@example.com", name = "ErinFromTheBackup"
            let uid = try Self.registerWithEveryCache(dir, email: email, name: name)
            #expect(try dir.run(["login", "--email", "olive@example.com", "--password-stdin"], stdin: Self.password + "\n", env: env).status == 0)
            let secrets = [email, name] + Self.hashes(email)
            // A backup of every file but the log, taken before the erasure.
            let backup = path + "/backup"
            try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
            let saved = try Self.everyFile(dir.path).filter { $0.name != "events.jsonl" }
            #expect(saved.contains { $0.name == "events.keys" } && saved.contains { $0.name.hasSuffix(".checkpoint") }, "\(saved.map(\.name))")
            #expect(try dir.run(["account", "delete", uid], env: env).status == 0)
            for (name, bytes) in saved {
                let target = dir.path + "/" + name
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try bytes.write(to: URL(fileURLWithPath: target))
            }
            // Any command, a read first: the log's erasure wins over the restored key and caches.
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            #expect(users.first { $0["uid"] as? String == uid }?["erased"] as? Bool == true, "\(users)")
            #expect(try dir.run(["user", uid]).stdout.contains("[erased]"))
            // That read destroyed the restored key again and dropped the restored caches; a writer finds nothing left.
            #expect(try dir.run(["login", "--email", "olive@example.com", "--password-stdin"], stdin: Self.password + "\n", env: env).status == 0)
            let found = try Self.findings(of: secrets, in: dir, outputs: try Self.outputs(dir, uid: uid))
            #expect(found.isEmpty, "\(found)")
            let lines = try Self.decrypted(dir)
            #expect(!lines.contains { ($0["data"] as? [String: Any])?["email"] as? String == email }, "the key is destroyed again")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// The 16 bytes the writers' index keys an email by (the first half of SHA-256 of `email\0…`), in
    /// both byte orders of its two words: what a restored index would hold of the address.
    private static func indexKeys(_ email: String) -> [Data] {
        let digest = Array(("email\u{0}" + email).utf8).withUnsafeBytes { SHA256.digest($0) }
        let straight = Data(digest.prefix(16))
        return [straight, Data(digest[0..<8].reversed() + digest[8..<16].reversed())]
    }

    /// A read alone, with no writer or `recover` after it, finishes what a backup restored after an
    /// erasure brought back, as a start must: the key the erasure destroyed (with every file but the
    /// log restored), or only the writers' index files recorded before the erasure. Nothing of the
    /// erased person is left in any file, under any name or as the index's key of the email.
    @Test(arguments: [true, false])
    func aReadAloneFinishesWhatARestoredBackupBroughtBack(_ everyFileButTheLog: Bool) throws {
        try withTempDirectory { path in
            let env = Self.everyCache
            let dir = LedgerDir(path: path + "/data")
            let email = "read.rita@example.com", name = "RitaRestoredAgain"
            let uid = try Self.registerWithEveryCache(dir, email: email, name: name)
            let indexFiles = ["events.jsonl.index", "events.jsonl.index.checkpoint"]
            let saved = try Self.everyFile(dir.path).filter { everyFileButTheLog ? $0.name != "events.jsonl" : indexFiles.contains($0.name) }
            #expect(Set(indexFiles).isSubset(of: saved.map(\.name)), "\(saved.map(\.name))")
            #expect(saved.contains { file in Self.indexKeys(email).contains { file.bytes.range(of: $0) != nil } },
                    "a saved index keys the email: what this test is about")
            #expect(try dir.run(["account", "delete", uid], env: env).status == 0)
            for (name, bytes) in saved { try bytes.write(to: URL(fileURLWithPath: dir.path + "/" + name)) }
            let read = try dir.run(["users", "--json"])
            #expect(read.status == 0 && !read.stdout.contains(email) && !read.stdout.contains(name), "\(read)")
            #expect(read.stderr.contains("destroyed the key of erased account-\(uid)") == everyFileButTheLog, "\(read.stderr)")
            // Nothing of Rita under any name or in any file, the index's key of her email included.
            let found = try Self.findings(of: [email, name] + Self.hashes(email), in: dir, outputs: [:])
            #expect(found.isEmpty, "\(found)")
            for file in try Self.everyFile(dir.path) where Self.indexKeys(email).contains(where: { file.bytes.range(of: $0) != nil }) {
                Issue.record("\(file.name) still keys the erased email")
            }
            #expect(!(try Self.decrypted(dir)).contains { ($0["data"] as? [String: Any])?["email"] as? String == email }, "the key is gone")
            // Olive reads and signs in as before; a second read changes nothing more.
            #expect(try dir.run(["login", "--email", "olive@example.com", "--password-stdin"], stdin: Self.password + "\n").status == 0)
            #expect(!(try dir.run(["users"])).stderr.contains("destroyed"))
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// Reads alone (no writer comes to drop the caches) do not leave a views checkpoint restored from
    /// before an erasure on the disk: not with checkpoints off (nothing reads or replaces it then), not
    /// after an `--as-of` read that started from it (which saves none).
    @Test(arguments: [["LEDGER_CHECKPOINT_EVERY": "0"], [:]])
    func readsAloneDropACheckpointRestoredFromBeforeAnErasure(_ readEnv: [String: String]) throws {
        try withTempDirectory { path in
            let env = Self.everyCache
            let dir = LedgerDir(path: path + "/data")
            let email = "checkpointed.carol@example.com", name = "CarolInTheCheckpoint"
            let uid = try Self.registerWithEveryCache(dir, email: email, name: name)
            let checkpoint = dir.logPath + ".checkpoint"
            let saved = try Data(contentsOf: URL(fileURLWithPath: checkpoint))
            #expect(saved.range(of: Data(email.utf8)) != nil, "the checkpoint holds the email in clear: what this test is about")
            #expect(try dir.run(["account", "delete", uid], env: env).status == 0)
            #expect(!FileManager.default.fileExists(atPath: checkpoint), "the erasure dropped it")
            try saved.write(to: URL(fileURLWithPath: checkpoint))
            let head = try readText(dir.logPath).split(separator: "\n").count
            let arguments = readEnv.isEmpty ? ["users", "--json", "--as-of", String(head)] : ["users", "--json"]
            let read = try dir.run(arguments, env: readEnv)
            #expect(read.status == 0 && !read.stdout.contains(email) && !read.stdout.contains(name), "\(read)")
            let left = (try? Data(contentsOf: URL(fileURLWithPath: checkpoint))) ?? Data()
            #expect(left.range(of: Data(email.utf8)) == nil && left.range(of: Data(name.utf8)) == nil,
                    "a read left the restored checkpoint with the erased data (\(left.count) bytes)")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func anErasureCutShortIsFinishedByTheNextCommand() throws {
        try withTempDirectory { path in
            for next in [["recover"], ["login", "--email", "olive@example.com", "--password-stdin"]] {
                let dir = LedgerDir(path: path + "/\(next[0])")
                let email = "cut.short@example.com"
                let registered = try dir.register(email: email, username: "CutShort", password: Self.password)
                let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
                #expect(try dir.register(email: "olive@example.com", username: "Olive", password: Self.password).status == 0)
                // Killed once PersonalDataErased is durable, before its key is destroyed.
                let killed = try dir.run(["account", "delete", uid], env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"])
                #expect(killed.status != 0, "\(killed)")
                #expect(FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"), "the marker names what was being erased")
                #expect(try Self.decrypted(dir).contains { ($0["data"] as? [String: Any])?["email"] as? String == email }, "the key is still there")
                #expect(try dir.run(next, stdin: Self.password + "\n").status == 0)
                #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
                #expect(!(try Self.decrypted(dir).contains { ($0["data"] as? [String: Any])?["email"] as? String == email }), "destroyed by \(next[0])")
                let found = try Self.findings(of: [email, "CutShort"] + Self.hashes(email), in: dir, outputs: try Self.outputs(dir, uid: uid))
                #expect(found.isEmpty, "\(found)")
            }
        }
    }

    /// `recover` says an erasure a crash cut short is finished, not that a backup brought its key back.
    @Test(arguments: [true, false])
    func recoverNamesAnErasureCutShortAsSuch(json: Bool) throws {
        try withLedgerDir { dir in
            let registered = try dir.register(email: "cut.short@example.com", username: "CutShort", password: Self.password)
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let killed = try dir.run(["account", "delete", uid], env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"])
            #expect(killed.status != 0, "\(killed)")
            let recovered = try dir.run(json ? ["recover", "--json"] : ["recover"])
            #expect(recovered.status == 0, "\(recovered)")
            if json {
                let report = try parseObject(recovered.stdout)
                #expect(report["destroyedKeys"] as? [String] == ["account-\(uid)"], "\(recovered)")
                #expect(report["finishedErasures"] as? [String] == ["account-\(uid)"], "\(recovered)")
            } else {
                #expect(recovered.stdout == "destroyed the key of erased account-\(uid): its erasure was cut short, and is finished now\n", "\(recovered)")
            }
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func anErasureWhoseBatchAPowerCutLeftUnfinishedErasesNothing() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            let email = "still.here@example.com"
            let registered = try dir.register(email: email, username: "StillHere", password: Self.password)
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let before = try readText(dir.logPath)
            // A power cut during the batch's sync: its lines before PersonalDataErased only are on disk, never acknowledged.
            let cut = try dir.run(["account", "delete", uid], env: ["LEDGER_FAILPOINTS": "PersonalDataErased=power-loss"])
            #expect(cut.status != 0, "\(cut)")
            #expect(try readText(dir.logPath) != before, "a cut batch is left")
            #expect(FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"), "noted with the batch")
            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            #expect(try readText(dir.logPath) == before, "the cut batch is gone")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
            // Its erasure event never became durable: the key stays, the account lives and signs in.
            #expect(try dir.login(email: email, password: Self.password).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try dir.run(["user", uid]).stdout.contains(email))
        }
    }

    /// Two accounts of different emails, both deleted and erased: every erased email reads alike,
    /// and the audit does not take the second account for a second live account of the first's email.
    @Test func erasedAccountsAreNoDuplicatesOfOneAnother() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            for email in ["one@example.com", "two@example.com"] {
                #expect(try dir.register(email: email, username: "U", password: Self.password).status == 0)
                #expect(try dir.run(["account", "delete", email, "--json"]).status == 0)
            }
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0 && !audit.stdout.contains("duplicate-live-account"), "\(audit)")
        }
    }
}
