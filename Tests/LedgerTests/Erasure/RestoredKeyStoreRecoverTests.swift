import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - RestoredKeyStoreRecoverTests

/// The key store alone restored from a backup taken before an erasure, beside caches written after
/// it (so no writer meets the erasure event again): `ledger recover` destroys the restored key of
/// every subject the log's erasure events name, and only those, on the file store and PostgreSQL;
/// a second run finds nothing to do.
@Suite struct RestoredKeyStoreRecoverTests {
    /// The uid `register --json` printed.
    private static func uid(_ result: ProcessResult) throws -> String {
        try #require(try parseObject(result.stdout)["uid"] as? String, "\(result)")
    }

    /// `count` accounts `NAME<n>@example.com` (password `password number <n>`), the key store backed
    /// up, account `erasing` deleted, caches written after it (the writers' index by a sign-in of
    /// account `signingIn`, the views' checkpoint), then the key store restored from the backup.
    /// Returns the uids and the erased subject. The next writer finds the restored key (from the
    /// erasures the writers' index records) and destroys it: `reviveKey` brings it back once more.
    private static func restoredAfterAnErasure(_ dir: LedgerDir, name: String, count: Int, erasing: Int,
                                               signingIn: Int) throws -> (uids: [String], erased: SubjectID) {
        var uids: [String] = []
        for n in 0..<count {
            uids.append(try uid(try dir.register(email: "\(name)\(n)@example.com", username: "\(name) \(n)", password: "password number \(n)")))
        }
        let backup = try readBytes(dir.path + "/events.keys")
        #expect(try dir.run(["account", "delete", uids[erasing]]).status == 0)
        #expect(try dir.login(email: "\(name)\(signingIn)@example.com", password: "password number \(signingIn)").status == 0)
        #expect(try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
        try writeBytes(backup, to: dir.path + "/events.keys")
        try writeBytes(backup, to: dir.path + "/events.keys.backup")
        return (uids, SubjectID.account(try #require(UUIDBits(uuid: uids[erasing]))))
    }

    /// The slot of `subject` in `events.keys` put back as the backup `restoredAfterAnErasure` kept
    /// holds it (its key live), every other slot as it is: a key restored again after a writer
    /// destroyed it, where restoring the whole file would lose the keys made since.
    private static func reviveKey(of subject: SubjectID, in dir: LedgerDir) throws {
        let backup = try readBytes(dir.path + "/events.keys.backup")
        var keys = try readBytes(dir.path + "/events.keys")
        let id = Array(subject.text.utf8)
        let slot = try #require(stride(from: 128, to: backup.count, by: 128).first { at in
            backup[at] == 1 && Int(backup[at + 1]) == id.count && Array(backup[(at + 8)..<(at + 8 + id.count)]) == id
        })
        #expect(keys.count == backup.count && keys[slot] == 2, "the same slot, erased")
        keys.replaceSubrange(slot..<(slot + 128), with: backup[slot..<(slot + 128)])
        try writeBytes(keys, to: dir.path + "/events.keys")
    }

    @Test func recoverDestroysTheKeysARestoredKeyStoreBroughtBack() throws {
        try withLedgerDir { dir in
            let (uids, erased) = try Self.restoredAfterAnErasure(dir, name: "keeper", count: 3, erasing: 1, signingIn: 0)
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .live, "the backup brought the key back")
            // A writer resumes from its index, and finds the restored key from the erasures it records.
            #expect(try dir.login(email: "keeper2@example.com", password: "password number 2").status == 0)
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .erased)
            try Self.reviveKey(of: erased, in: dir)

            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["destroyedKeys"] as? [String] == [erased.text])
            #expect(try parseObject(recovered.stdout)["finishedErasures"] as? [String] == [], "a restored key is not an erasure cut short")
            let keys = try KeyStore(directory: dir.path, writable: false)
            #expect(try keys.state(of: erased) == .erased)
            for n in [0, 2] {
                let kept = SubjectID.account(try #require(UUIDBits(uuid: uids[n])))
                #expect(try keys.state(of: kept) == .live, "another person's key stays")
            }
            let users = try dir.run(["users", "--json"])
            #expect(users.stdout.contains("keeper0@example.com") && users.stdout.contains("keeper2@example.com"))
            #expect(!users.stdout.contains("keeper1@"))
            #expect(try dir.login(email: "keeper2@example.com", password: "password number 2").status == 0)
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 0, "\(verified)")

            let again = try dir.run(["recover"])
            #expect(again.status == 0 && again.stdout == "nothing to recover\n", "\(again)")
        }
    }

    /// The same with the writers' index gone too: recover's own catch-up meets the erasure past its
    /// caches and destroys the key on the way; the report still names it.
    @Test func recoverReportsTheKeysItsCatchUpDestroyed() throws {
        try withLedgerDir { dir in
            let (_, erased) = try Self.restoredAfterAnErasure(dir, name: "way", count: 2, erasing: 0, signingIn: 1)
            for cache in ["events.jsonl.index", "events.jsonl.index.checkpoint", "events.jsonl.checkpoint"] {
                try? FileManager.default.removeItem(atPath: dir.path + "/" + cache)
            }
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["destroyedKeys"] as? [String] == [erased.text], "\(recovered)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .erased)
            let text = try dir.run(["recover"])
            #expect(text.stdout == "nothing to recover\n", "\(text)")
        }
    }

    /// An email the erased account once held and a live account holds now: the sweep leaves that
    /// account's sign-in lock file (and the uncounted check in it) alone.
    @Test func theSweepLeavesALiveAccountsSignInLock() throws {
        try withLedgerDir { dir in
            let (_, erased) = try Self.restoredAfterAnErasure(dir, name: "shared", count: 2, erasing: 0, signingIn: 1)
            #expect(try dir.register(email: "shared0@example.com", username: "Taker", password: "password taker").status == 0)
            // A check left uncounted in the new holder's lock file.
            let failed = try dir.run(["login", "--email", "shared0@example.com", "--password-stdin"], stdin: "not the password\n",
                                     env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
            #expect(failed.status != 0, "\(failed)")
            try Self.reviveKey(of: erased, in: dir)
            let lock = FileSignInLocks.path(directory: dir.path, email: "shared0@example.com")
            #expect(FileManager.default.fileExists(atPath: lock))
            let lockBytes = try readBytes(lock)
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["destroyedKeys"] as? [String] == [erased.text])
            #expect(FileManager.default.fileExists(atPath: lock))
            #expect(try readBytes(lock) == lockBytes, "the live account’s lock file stays")
        }
    }

    /// A key store copied before an account was made and erased (a backup that copied `events.keys`
    /// first): it lacks a subject the log's last lines name, but the log erases it, so nothing is
    /// lost — writers and `recover` go on, with the caches or without them.
    @Test(arguments: [false, true])
    func aKeyStoreOlderThanAnErasedSubjectIsNoLoss(_ removingCaches: Bool) throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "older0@example.com", username: "Older", password: "password number 0").status == 0)
            let backup = try readBytes(dir.path + "/events.keys")
            let gone = try Self.uid(try dir.register(email: "older1@example.com", username: "Gone", password: "password number 1"))
            #expect(try dir.run(["account", "delete", gone]).status == 0)
            try writeBytes(backup, to: dir.path + "/events.keys")
            if removingCaches {
                for cache in ["events.jsonl.index", "events.jsonl.index.checkpoint", "events.jsonl.checkpoint"] {
                    try? FileManager.default.removeItem(atPath: dir.path + "/" + cache)
                }
            }
            #expect(try dir.run(["verify", "--json"]).status == 0)
            let registered = try dir.register(email: "older2@example.com", username: "Next", password: "password number 2")
            #expect(registered.status == 0, "\(registered)")
            // The writer wrote the erased slot the key store lacked: the next need not read the log for it.
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: SubjectID.account(try #require(UUIDBits(uuid: gone)))) == .erased)
            #expect(try dir.login(email: "older0@example.com", password: "password number 0").status == 0)
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try dir.run(["verify", "--json"]).status == 0)
        }
    }

    /// An erasure event before damage (it may be a forgery whose hash was made anew): neither a
    /// writer nor `recover` destroys a key for it; both refuse, the key store untouched.
    @Test func noKeyIsDestroyedForALineBeforeDamage() throws {
        try withLedgerDir { dir in
            let (_, erased) = try Self.restoredAfterAnErasure(dir, name: "before", count: 2, erasing: 0, signingIn: 1)
            #expect(try dir.register(email: "after@example.com", username: "After", password: "password after").status == 0)
            #expect(try dir.login(email: "before1@example.com", password: "password number 1").status == 0)
            try Self.reviveKey(of: erased, in: dir)
            let keys = try readBytes(dir.path + "/events.keys")
            // Damage on a line after the erasure, not the last one.
            var lines = try readText(dir.logPath).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let target = try #require(lines.lastIndex { $0.contains("\"AccountCreated\"") })
            #expect(target < lines.count - 2)
            lines[target] = lines[target].replacingOccurrences(of: "\"at\":\"", with: "\"at\":\"1")
            try writeBytes(Array(lines.joined(separator: "\n").utf8), to: dir.logPath)
            for cache in ["events.jsonl.index", "events.jsonl.index.checkpoint", "events.jsonl.checkpoint"] {
                try? FileManager.default.removeItem(atPath: dir.path + "/" + cache)
            }
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .live, "the backup brought the key back")
            let login = try dir.login(email: "before1@example.com", password: "password number 1")
            #expect(login.status == 1, "\(login)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .live, "a writer destroyed nothing")
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 1, "\(recovered)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: erased) == .live, "recover destroyed nothing")
            #expect(try readBytes(dir.path + "/events.keys") == keys)
        }
    }

    @Test func recoverDestroysTheKeysARestoredKeyTableBroughtBack() throws {
        try withPostgresLedger { pg in
            let kept = try Self.uid(try pg.run(LedgerDir.registerArguments(email: "stays@example.com", username: "Stays"), stdin: "password stays\n"))
            let gone = try Self.uid(try pg.run(LedgerDir.registerArguments(email: "goes@example.com", username: "Goes"), stdin: "password goes\n"))
            let third = try Self.uid(try pg.run(LedgerDir.registerArguments(email: "third@example.com", username: "Third"), stdin: "password third\n"))
            let subject = "account-" + gone.lowercased()
            let connection = try PostgresConnection(pg.url)
            let saved = try connection.execute("SELECT encode(key, 'hex') FROM ledger_keys WHERE subject = $1 AND NOT erased", [subject])
            let hex = try #require(saved.count == 1 ? saved.string(0, 0) : nil)
            #expect(try pg.run(["account", "delete", gone]).status == 0)
            // The table restored from a backup taken before the erasure.
            _ = try connection.execute("UPDATE ledger_keys SET erased = false, key = decode($1, 'hex') WHERE subject = $2", [hex, subject])
            // Before any recover: the log's erasure wins in every read, and the first read that meets
            // it destroys the restored key, as a start must (and says so); verify finds the tables right.
            var restored = true
            for command in [["users", "--json"], ["user", gone, "--json"], ["audit", "--json"], ["events", "--json"],
                            ["users", "--as-of", "2", "--json"], ["user", gone, "--as-of", "3", "--json"]] {
                let read = try pg.run(command, env: ["LEDGER_CHECKPOINT_EVERY": "0"])
                #expect(!read.stdout.contains("goes@example.com") && !read.stdout.contains("\"Goes\""), "\(command): \(read)")
                #expect(read.stderr.contains("destroyed the key of erased \(subject)") == restored, "\(command): \(read.stderr)")
                restored = false
                let row = try connection.execute("SELECT erased FROM ledger_keys WHERE subject = $1", [subject])
                #expect(row.string(0, 0) == "t", "\(command) left the restored key")
            }
            // A read from a checkpoint saved after the erasure never meets the event: it asks
            // `ledger_keys` about the erasures the checkpoint records, and destroys the restored key too.
            #expect(try pg.run(["users"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            #expect(try connection.execute("SELECT count(*) FROM ledger_checkpoints").string(0, 0) != "0", "a checkpoint row past the erasure")
            _ = try connection.execute("UPDATE ledger_keys SET erased = false, key = decode($1, 'hex') WHERE subject = $2", [hex, subject])
            let fromCheckpoint = try pg.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1"])
            #expect(!fromCheckpoint.stdout.contains("goes@example.com"), "\(fromCheckpoint)")
            #expect(fromCheckpoint.stderr.contains("destroyed the key of erased \(subject)"), "\(fromCheckpoint.stderr)")
            #expect(try connection.execute("SELECT erased FROM ledger_keys WHERE subject = $1", [subject]).string(0, 0) == "t")
            // The table restored again, for the rest: only `recover` and writers run from here on.
            _ = try connection.execute("UPDATE ledger_keys SET erased = false, key = decode($1, 'hex') WHERE subject = $2", [hex, subject])
            // verify finds the tables right, and names the restored key (on the erasure's line), never its data.
            func onlyTheRestoredKey() throws {
                let verified = try pg.run(["verify", "--json"])
                #expect(verified.status == 1, "\(verified)")
                let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
                #expect(problems.map { $0["kind"] as? String } == ["erased-key-present"], "\(problems)")
                #expect((problems.first?["message"] as? String)?.contains("ledger_keys still holds a live key of \(subject)") == true)
                #expect(!verified.stdout.contains("goes@"))
            }
            try onlyTheRestoredKey()
            // An export of the keys writes the key the log erased as erased.
            let exported = pg.dir.path + "/../keys-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: exported) }
            #expect(try pg.run(["export", "--keys", exported]).status == 0)
            #expect(try KeyStore(path: exported, writable: false).state(of: try #require(SubjectID(subject))) == .erased)
            // Another erasure folds the account tables again: the restored key does not bring the email back into them.
            let mark = try connection.execute("SELECT seq, hash FROM ledger_account_state")
            #expect(try pg.run(["account", "delete", third]).status == 0)
            func leaks() throws -> [String] {
                try ["ledger_accounts", "ledger_account_emails", "ledger_signin_failures"].filter { table in
                    try connection.execute("SELECT count(*) FROM \(table) AS t WHERE t::text LIKE '%goes@%'").string(0, 0) != "0"
                }
            }
            #expect(try leaks() == [])
            try onlyTheRestoredKey()
            // Tables behind that erasure (a backup of them): the next writer folds them again, every erasure winning.
            _ = try connection.execute("UPDATE ledger_account_state SET seq = $1, hash = $2", [mark.string(0, 0), mark.string(0, 1)])
            #expect(try pg.run(LedgerDir.registerArguments(email: "fourth@example.com", username: "Fourth"), stdin: "password fourth\n").status == 0)
            #expect(try leaks() == [])
            try onlyTheRestoredKey()
            // Tables edited to show the erased email are a cache-mismatch, the restored key notwithstanding;
            // recover destroys the key and folds the tables again.
            _ = try connection.execute("UPDATE ledger_accounts SET email = 'goes@example.com' WHERE uid = $1", [gone])
            let edited = try pg.run(["verify", "--json"])
            #expect(edited.status == 1 && edited.stdout.contains("cache-mismatch"), "\(edited)")

            let recovered = try pg.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["destroyedKeys"] as? [String] == [subject])
            #expect(try leaks() == [])
            #expect(try pg.run(["verify", "--json"]).status == 0)
            let rows = try connection.execute("SELECT subject, erased, key IS NULL FROM ledger_keys WHERE subject IN ($1, $2) ORDER BY subject",
                                              [subject, "account-" + kept.lowercased()])
            #expect(rows.count == 2)
            for row in 0..<rows.count {
                let isGone = rows.string(row, 0) == subject
                #expect(rows.string(row, 1) == (isGone ? "t" : "f") && rows.string(row, 2) == (isGone ? "t" : "f"), "\(rows.string(row, 0) ?? "")")
            }
            #expect(try pg.run(["users", "--json"]).stdout.contains("stays@example.com"))
            let again = try pg.run(["recover", "--json"])
            #expect(try parseObject(again.stdout)["destroyedKeys"] as? [String] == [])
        }
    }

    /// A log imported into a store that holds its prefix, after an erasure in the file: the import
    /// erases in the store as the erasure did (the key row, the pending sign-in check of its email).
    @Test func anImportedErasureErasesInTheStore() throws {
        try withPostgresLedger { pg in
            try withLedgerDir { file in
                let gone = try Self.uid(try file.register(email: "imported@example.com", username: "Imported", password: "password imported"))
                #expect(try file.register(email: "other@example.com", username: "Other", password: "password other").status == 0)
                #expect(try pg.run(["import", file.logPath]).status == 0)
                let subject = "account-" + gone.lowercased()
                let connection = try PostgresConnection(pg.url)
                let live = try connection.execute("SELECT count(*) FROM ledger_keys WHERE subject = $1 AND NOT erased", [subject])
                #expect(live.string(0, 0) == "1")
                let failed = try pg.run(["login", "--email", "imported@example.com", "--password-stdin"], stdin: "not the password\n",
                                        env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
                #expect(failed.status != 0, "\(failed)")
                #expect(try connection.execute("SELECT count(*) FROM ledger_signin_pending").string(0, 0) == "1")
                #expect(try file.run(["account", "delete", gone]).status == 0)
                let imported = try pg.run(["import", file.logPath])
                #expect(imported.status == 0, "\(imported)")
                let rows = try connection.execute("SELECT erased, key IS NULL FROM ledger_keys WHERE subject = $1", [subject])
                #expect(rows.count == 1 && rows.string(0, 0) == "t" && rows.string(0, 1) == "t")
                #expect(try connection.execute("SELECT count(*) FROM ledger_signin_pending").string(0, 0) == "0")
                #expect(try pg.run(["verify", "--json"]).status == 0)
            }
        }
    }
}
