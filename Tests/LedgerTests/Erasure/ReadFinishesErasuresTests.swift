import Foundation
@testable import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ReadFinishesErasuresTests

/// What a read does, and does not do, after meeting erasure events (`LogSource.finishErasures`),
/// from an attack on it: a healthy folder is left alone (nothing written, the writers' lock not
/// taken: an index being built, or one the reader cannot open, is no sign of a restore); a writer
/// at work is not waited for; and a restored sign-in lock file of an erased email goes with the key.
@Suite struct ReadFinishesErasuresTests {
    /// Two accounts, the first deleted (its key destroyed), a writer after it (the index rebuilt):
    /// returns the deleted uid, its email and the key store's bytes from before the deletion.
    private static func deletedOne(_ dir: LedgerDir, email: String) throws -> (uid: String, keys: [UInt8]) {
        let uid = try #require(try parseObject(try dir.register(email: email, username: "Gone", password: "password gone").stdout)["uid"] as? String)
        #expect(try dir.register(email: "stays@example.com", username: "Stays", password: "password stays").status == 0)
        let keys = try readBytes(dir.path + "/events.keys")
        #expect(try dir.run(["account", "delete", uid]).status == 0)
        #expect(try dir.login(email: "stays@example.com", password: "password stays").status == 0)
        return (uid, keys)
    }

    /// Every file of the folder with its bytes.
    private static func snapshot(_ dir: LedgerDir) throws -> [String: [UInt8]] {
        let names = try FileManager.default.subpathsOfDirectory(atPath: dir.path)
        var files: [String: [UInt8]] = [:]
        for name in names where !name.hasSuffix(".lock") {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir.path + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
                files[name] = try readBytes(dir.path + "/" + name)
            }
        }
        return files
    }

    /// A read of a healthy folder whose log holds an erasure changes no file, also with the index's
    /// header saying it covers nothing yet (a writer building it), and says nothing on stderr.
    @Test(arguments: [false, true])
    func aHealthyFolderIsLeftAlone(_ indexBeingBuilt: Bool) throws {
        try withLedgerDir { dir in
            _ = try Self.deletedOne(dir, email: "healthy@example.com")
            let index = dir.path + "/events.jsonl.index"
            if indexBeingBuilt {
                var bytes = try readBytes(index)
                for i in WritersIndex.Header.coveredSeq.offset..<(WritersIndex.Header.coveredSeq.offset + 8) { bytes[i] = 0 }
                try writeBytes(bytes, to: index)
                #expect(WritersIndex.recordedSeq(atPath: index) == 0)
            }
            let before = try Self.snapshot(dir)
            for command in [["users"], ["replay"], ["audit"], ["sessions"]] {
                let read = try dir.run(command, env: ["LEDGER_CHECKPOINT_EVERY": "0"])
                #expect(read.stderr.isEmpty, "\(command): \(read.stderr)")
            }
            #expect(try Self.snapshot(dir) == before, "a read changed a file")
        }
    }

    /// While another process holds the writers' lock, a read that would destroy a restored key does
    /// not wait for it: it answers at once and leaves the key to the next command, which destroys it.
    @Test func aReadDoesNotWaitForAWriter() throws {
        try withLedgerDir { dir in
            let (uid, keys) = try Self.deletedOne(dir, email: "waiting@example.com")
            try writeBytes(keys, to: dir.path + "/events.keys")
            let subject = SubjectID.account(try #require(UUIDBits(uuid: uid)))
            // Another process holds the lock for a few seconds (a read that waited for it would
            // then destroy the key: the state after the read tells).
            let lockPath = dir.path + "/events.lock"
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            holder.arguments = ["-x", lockPath, "sleep", "3"]
            try holder.run()
            let probe = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            while try probe.tryLock(LOCK_EX) { probe.unlock(); usleep(10_000) }
            let read = try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(read.status == 0 && !read.stdout.contains("waiting@example.com"), "\(read)")
            #expect(!read.stderr.contains("destroyed"), "\(read.stderr)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .live, "the read waited for the writer")
            holder.waitUntilExit()
            let next = try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(next.stderr.contains("destroyed the key of erased \(subject.text)"), "\(next.stderr)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased)
        }
    }

    /// An erasure under way — its event durable, its key not destroyed yet, `erasure.pending` naming
    /// it (the eraser between the two, or killed there) — is its own process's or the next writer's
    /// to finish: a read takes no lock, changes no file and says nothing; a writer then finishes it.
    @Test func aReadLeavesAnErasureUnderWayToItsWriter() throws {
        try withLedgerDir { dir in
            let uid = try #require(try parseObject(try dir.register(email: "midway@example.com", username: "Midway", password: "password midway").stdout)["uid"] as? String)
            #expect(try dir.register(email: "stays@example.com", username: "Stays", password: "password stays").status == 0)
            let killed = try dir.run(["account", "delete", uid], env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"])
            #expect(killed.status != 0, "\(killed)")
            let subject = SubjectID.account(try #require(UUIDBits(uuid: uid)))
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .live)
            let before = try Self.snapshot(dir)
            let read = try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(read.status == 0 && !read.stdout.contains("midway@example.com"), "\(read)")
            #expect(read.stderr.isEmpty, "\(read.stderr)")
            #expect(try Self.snapshot(dir) == before, "a read did the erasure's work")
            #expect(try dir.login(email: "stays@example.com", password: "password stays").status == 0)
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased, "the writer finished it")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
        }
    }

    /// An erasure of a live account forged into the middle of the log, every later line chained
    /// again: the caches remember the other history, so a read (as writers) destroys no key because
    /// of it and keeps the evidence (it saves no views checkpoint over it); `verify` names it.
    @Test func aForgedErasureInARewrittenLogDestroysNoKey() throws {
        try withLedgerDir { dir in
            let env = ["LEDGER_CHECKPOINT_EVERY": "1"]
            let alice = try #require(try parseObject(try dir.register(email: "alice@example.com", username: "Alice", password: "password alice", env: env).stdout)["uid"] as? String)
            let bob = try #require(try parseObject(try dir.register(email: "bob@example.com", username: "Bob", password: "password bob", env: env).stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", bob], env: env).status == 0)
            #expect(try dir.run(["users"], env: env).status == 0)
            let checkpoint = try readBytes(dir.logPath + ".checkpoint")
            var all = try LogRewriting.envelopes(try dir.logBytes())
            var forged = try #require(all.first { $0.type == "PersonalDataErased" })
            forged.id = UUID().uuidString.lowercased()
            forged.batch = nil
            forged.stream = "account-" + alice
            forged.data = JSONObject([("uid", .string(alice)), ("subject", .string("account-" + alice)), ("reason", .string("account-deleted"))])
            // Between two batches, before Bob's deletion: the lines after it are chained again.
            all.insert(forged, at: try #require(all.firstIndex { $0.type == "AccountDeleted" }))
            try writeBytes(LogRewriting.chained(all, renumbering: true), to: dir.logPath)
            let subject = SubjectID.account(try #require(UUIDBits(uuid: alice)))

            let read = try dir.run(["users", "--json"], env: env)
            #expect(read.status == 0, "\(read)")
            #expect(!read.stderr.contains("destroyed"), "\(read.stderr)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .live, "a forged erasure destroyed a live key")
            #expect(try readBytes(dir.logPath + ".checkpoint") == checkpoint, "the read replaced the evidence")
            let login = try dir.login(email: "alice@example.com", password: "password alice")
            #expect(login.status == 1 && login.stdout.contains("history-rewritten"), "\(login)")
            #expect(try dir.run(["verify"]).stdout.contains("history-rewritten"))
        }
    }

    /// A sign-in lock file of the erased email, left with a check in it and restored from a backup
    /// with the key store and the caches, goes when the read destroys the key again (the key still
    /// opens the email it is named by).
    @Test func aRestoredLockFileOfTheErasedEmailGoesWithTheKey() throws {
        try withLedgerDir { dir in
            let email = "locked@example.com"
            let uid = try #require(try parseObject(try dir.register(email: email, username: "Locked", password: "password locked").stdout)["uid"] as? String)
            #expect(try dir.register(email: "stays@example.com", username: "Stays", password: "password stays").status == 0)
            let failed = try dir.run(["login", "--email", email, "--password-stdin"], stdin: "not the password\n",
                                     env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
            #expect(failed.status != 0, "\(failed)")
            let lockFile = FileSignInLocks.path(directory: dir.path, email: email)
            #expect(FileManager.default.fileExists(atPath: lockFile), "a check left in the lock file: what this test is about")
            let saved = try Self.snapshot(dir).filter { $0.key != "events.jsonl" }
            #expect(try dir.run(["account", "delete", uid]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: lockFile))
            for (name, bytes) in saved { try writeBytes(bytes, to: dir.path + "/" + name) }
            #expect(FileManager.default.fileExists(atPath: lockFile))
            let read = try dir.run(["users"])
            #expect(read.stderr.contains("destroyed the key of erased account-\(uid)"), "\(read.stderr)")
            #expect(!FileManager.default.fileExists(atPath: lockFile), "the restored lock file of the erased email stayed")
            #expect(try dir.login(email: "stays@example.com", password: "password stays").status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }
    /// A key store restored on its own (or with the writers' index files) from a backup taken
    /// before an erasure, beside a views checkpoint saved after it: a read from the checkpoint never
    /// meets the erasure event, yet it finds the restored key (the checkpoint records the erasure)
    /// and destroys it, and drops index files recorded before the erasure; the next read is quiet.
    @Test(arguments: [false, true])
    func aReadFromACheckpointAfterTheErasureFindsARestoredKeyStore(_ withIndexFiles: Bool) throws {
        try withLedgerDir { dir in
            let env = ["LEDGER_CHECKPOINT_EVERY": "1"]
            let email = "behind@example.com"
            let uid = try #require(try parseObject(try dir.register(email: email, username: "Behind", password: "password behind", env: env).stdout)["uid"] as? String)
            #expect(try dir.register(email: "stays@example.com", username: "Stays", password: "password stays", env: env).status == 0)
            let restored = ["events.keys"] + (withIndexFiles ? ["events.jsonl.index", "events.jsonl.index.checkpoint"] : [])
            let saved = try Self.snapshot(dir).filter { restored.contains($0.key) }
            #expect(saved.count == restored.count, "\(saved.keys.sorted())")
            #expect(try dir.run(["account", "delete", uid], env: env).status == 0)
            #expect(try dir.run(["login", "--email", "stays@example.com", "--password-stdin"], stdin: "password stays\n", env: env).status == 0)
            #expect(try dir.run(["users"], env: env).status == 0)
            let erasureSeq = try #require(try LogRewriting.envelopes(try dir.logBytes()).first { $0.type == "PersonalDataErased" }?.seq)
            let checkpoint = try #require(Checkpoint.load(forLog: dir.logPath, file: try FileDescriptor(path: dir.logPath, flags: O_RDONLY)))
            #expect(checkpoint.views.head.seq > erasureSeq && checkpoint.erasures.map(\.seq) == [erasureSeq],
                    "a checkpoint saved after the erasure: what this test is about")
            for (name, bytes) in saved { try writeBytes(bytes, to: dir.path + "/" + name) }
            let subject = SubjectID.account(try #require(UUIDBits(uuid: uid)))
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .live)

            let read = try dir.run(["users", "--json"], env: env)
            #expect(read.status == 0 && !read.stdout.contains(email), "\(read)")
            #expect(read.stderr.contains("destroyed the key of erased \(subject.text)"), "\(read.stderr)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased, "the restored key is still live")
            for name in ["events.jsonl.index", "events.jsonl.index.checkpoint"] {
                if let covered = WritersIndex.recordedSeq(atPath: dir.path + "/" + name) {
                    #expect(covered == 0 || covered >= erasureSeq, "\(name) still records the log before the erasure")
                }
            }
            #expect(try dir.run(["users"], env: env).stderr.isEmpty)
            #expect(try dir.run(["login", "--email", "stays@example.com", "--password-stdin"], stdin: "password stays\n", env: env).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }
}

// MARK: - Forged checkpoints

/// A views checkpoint re-sealed by someone who can write the folder, to record an erasure the log
/// does not hold: a read takes nothing for erased because of it (the log's line at that seq is
/// looked up first), so no cache is rebuilt with a live person erased and no second account takes
/// their email; a seq past the checkpoint's head is not taken either (no index file dropped).
@Suite struct ForgedCheckpointErasureTests {
    @Test(arguments: [false, true])
    func aForgedErasureInTheCheckpointErasesNothing(_ pastTheHead: Bool) throws {
        try withLedgerDir { dir in
            let env = ["LEDGER_CHECKPOINT_EVERY": "1"]
            let bob = try #require(try parseObject(try dir.register(email: "bob@example.com", username: "Bob", password: "password bob", env: env).stdout)["uid"] as? String)
            let gone = try #require(try parseObject(try dir.register(email: "gone@example.com", username: "Gone", password: "password gone", env: env).stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", gone], env: env).status == 0)
            #expect(try dir.login(email: "bob@example.com", password: "password bob").status == 0)
            #expect(try dir.run(["users"], env: env).status == 0)
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            var checkpoint = try #require(Checkpoint.load(forLog: dir.logPath, file: log))
            let head = checkpoint.views.head.seq
            checkpoint.views.accountChanges.changes.append(AccountChangeView.ChangeRow(
                seq: pastTheHead ? head + 1 : head, at: Timestamp(millis: 0), uid: try #require(UUIDBits(uuid: pastTheHead ? gone : bob)),
                email: "", change: .personalDataErased, reason: "operator"))
            checkpoint.save(forLog: dir.logPath)
            let forged = try #require(Checkpoint.load(forLog: dir.logPath, file: log))
            #expect(forged.erasures.count == (pastTheHead ? 1 : 2), "the reader takes a seq up to the head only")
            let index = try readBytes(dir.logPath + ".index")

            let read = try dir.run(["users", "--json"], env: env)
            #expect(read.status == 0 && read.stderr.isEmpty, "\(read)")
            #expect(try readBytes(dir.logPath + ".index") == index, "a read rebuilt or dropped the index because of the forged row")
            #expect(try dir.login(email: "bob@example.com", password: "password bob").status == 0, "Bob cannot sign in")
            let taken = try dir.register(email: "bob@example.com", username: "Mallory", password: "password mallory")
            #expect(taken.status == 1, "a second live account took Bob's email: \(taken)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: .account(try #require(UUIDBits(uuid: bob)))) == .live)
        }
    }
}
