import Foundation
import LedgerKit
import Testing

// What an attack on the erasure found, each kept fixed: a restored key store read through
// `--as-of` or copied by `export --keys`, a lost key store turning encryption off, an empty address
// erasing a day, a damaged or foreign key store wedging every read (or passing `verify`), and
// `export --keys` over the live key store.

@Suite struct ErasureAttackTests {
    private static let password = "correct horse attacked"

    /// A folder with one account registered (and its uid), another one deleted, and the key store
    /// as it was before the deletion restored over the current one.
    private static func restoredAfterDeletion(_ path: String) throws -> (dir: LedgerDir, uid: String) {
        let dir = LedgerDir(path: path + "/data")
        let registered = try dir.register(email: "victim@example.com", username: "Victim", password: password)
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        #expect(try dir.register(email: "olive@example.com", username: "Olive", password: password).status == 0)
        let keys = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/events.keys"))
        #expect(try dir.run(["account", "delete", uid]).status == 0)
        try keys.write(to: URL(fileURLWithPath: dir.path + "/events.keys"))
        return (dir, uid)
    }

    @Test func aRestoredKeyStoreLendsNothingToAnAsOfReadOrAnExport() throws {
        try withTempDirectory { path in
            let (dir, uid) = try Self.restoredAfterDeletion(path)
            for read in [["users", "--as-of", "3"], ["user", uid, "--as-of", "3"], ["audit", "--as-of", "3", "--json"]] {
                let result = try dir.run(read)
                #expect(!result.stdout.contains("victim@example.com") && !result.stdout.contains("Victim"), "\(read): \(result)")
            }
            let keys = path + "/export.keys"
            let exported = try dir.run(["export", "--keys", keys])
            #expect(exported.status == 0, "\(exported)")
            try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: path + "/export.jsonl"))
            let decrypted = try pythonTool("decrypt_log.py", [path + "/export.jsonl", keys])
            #expect(!decrypted.stdout.contains("victim@example.com") && decrypted.stdout.contains("olive@example.com"), "\(decrypted)")
        }
    }

    @Test func aVersionTwoLogWithoutItsKeyStoreIsNeverWrittenInClear() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            #expect(try dir.register(email: "first@example.com", password: Self.password).status == 0)
            try FileManager.default.removeItem(atPath: dir.path + "/events.keys")
            let before = try readText(dir.logPath)
            let refused = try dir.register(email: "second@example.com", password: Self.password)
            #expect(refused.status == 3 && refused.stderr.contains("key store"), "\(refused)")
            #expect(try readText(dir.logPath) == before, "nothing appended")
            let verify = try dir.run(["verify", "--json"])
            #expect(verify.status == 1 && verify.stdout.contains("missing-key"), "\(verify)")
        }
    }

    @Test func eraseEmailNeedsAnAddress() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            #expect(try dir.login(email: "stranger@example.com", password: "guessed password").status == 1)
            for value in ["", " ", "e", "example.com"] {
                let refused = try dir.run(["erase", "--email", value])
                #expect(refused.status == 2, "\(value): \(refused)")
            }
            #expect(try dir.run(["audit"]).stdout.contains("stranger@example.com"), "nothing erased")
        }
    }

    @Test func aDamagedOrForeignKeyStoreIsMissingKeyNotADamagedLog() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data"), other = LedgerDir(path: path + "/other")
            #expect(try dir.register(email: "one@example.com", username: "One", password: Self.password).status == 0)
            #expect(try dir.login(email: "stranger@example.com", password: "guessed password").status == 1)
            #expect(try other.login(email: "someone@example.com", password: "guessed password").status == 1)
            #expect(try other.run(["erase", "--email", "someone@example.com"]).status == 0)
            // Another folder's key store: its day is erased there, never in this log.
            try FileManager.default.removeItem(atPath: dir.path + "/events.keys")
            try FileManager.default.copyItem(atPath: other.path + "/events.keys", toPath: dir.path + "/events.keys")
            let users = try dir.run(["users", "--json"])
            #expect(users.status == 0, "reads go on: \(users)")
            let verify = try dir.run(["verify", "--json"])
            #expect(verify.status == 1 && verify.stdout.contains("missing-key") && !verify.stdout.contains("invalid-data"), "\(verify)")
        }
    }

    @Test func exportKeysNeverReplacesTheLiveKeyStore() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            #expect(try dir.register(email: "one@example.com", password: Self.password).status == 0)
            let live = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/events.keys"))
            let over = try dir.run(["export", "--keys", dir.path + "/events.keys"])
            #expect(over.status == 2, "\(over)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/events.keys")) == live)
            #expect(try dir.run(["export", "--keys", ""]).status == 2)
            let missing = try dir.run(["export", "--keys", path + "/no/such/folder/k"])
            #expect(missing.status == 3 && missing.stderr.contains("does not exist"), "\(missing)")
        }
    }
}
