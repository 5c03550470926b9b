import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - RestoredBackupErasuresTests

/// Every file but the log restored from a backup taken before several erasures (the key store with
/// the erased accounts' keys, the writers' index that knew them): a read ends with every one of them
/// erased and the others as before, and the next writer destroys every restored key at once.
@Suite struct RestoredBackupErasuresTests {
    @Test func aRestoredBackupBringsBackNoneOfSeveralErasures() throws {
        try withTempDirectory { dir in
            let count = KeyRing.lookupsBeforeLoading * 2
            do {
                let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
                for n in 0..<count {
                    _ = try store.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
                }
            }
            let backup = dir + "/../backup-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: backup) }
            let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "events.jsonl" }
            #expect(files.contains("events.keys"))
            for name in files { try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: backup + "/" + name) }
            let erased = [2, 9, 17, count - 10, count - 1]
            do {
                let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 10))
                for n in erased {
                    let uid = Fixtures.uuid(1000 + n)
                    _ = try store.append([.personalDataErased(PersonalDataErased(uid: uid, reason: .accountDeleted))],
                                         to: StreamCategory.account.stream(uid), expected: .any)
                    try store.destroyKeys(of: [SubjectID.account(UUIDBits(uuid: uid)!)])
                }
            }
            for name in files {
                try? FileManager.default.removeItem(atPath: dir + "/" + name)
                try FileManager.default.copyItem(atPath: backup + "/" + name, toPath: dir + "/" + name)
            }
            let subjects = erased.map { SubjectID.account(UUIDBits(uuid: Fixtures.uuid(1000 + $0))!) }
            #expect(try subjects.allSatisfy { try KeyStore(directory: dir, writable: false).state(of: $0) == .live }, "the backup's keys are back")
            // A read (a process of its own: a ring that never saw these subjects).
            let views = try ViewLoader.load(path: dir + "/events.jsonl", asOf: nil, now: Timestamp(millis: 0), usingCheckpoint: false).views
            for n in 0..<count {
                let row = try #require(views.users.row(uid: Fixtures.uuid(1000 + n)))
                #expect(row.email == (erased.contains(n) ? "" : "user\(n)@example.com"), "account \(n)")
            }
            // The next writer meets the erasures past the restored index: every restored key goes.
            let writer = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 11))
            _ = try writer.append([Fixtures.event(.accountCreated, count + 1)], to: Fixtures.stream(.registration, count + 1), expected: .noStream)
            let keys = try KeyStore(directory: dir, writable: false)
            for subject in subjects { #expect(try keys.state(of: subject) == .erased, "\(subject)") }
        }
    }

    /// `events.keys` alone restored from before an erasure, beside caches written after it (a
    /// checkpoint saved by a read, the writers' index): `verify` folds the log as the reads that wrote
    /// them did, the log's erasure winning, and finds nothing wrong with them (it reported the
    /// checkpoint and the index as disagreeing with the log, its own fold holding the erased data).
    /// What it reports is the key itself (`erased-key-present`, on the erasure's line), until a read
    /// destroys it.
    @Test func aKeyStoreRestoredAloneIsNoCacheMismatch() throws {
        try withLedgerDir { dir in
            for n in 0..<4 {
                _ = try dir.register(email: "person\(n)@example.com", username: "Person \(n)", password: "password number \(n)")
            }
            let keys = try readBytes(dir.path + "/events.keys")
            let users = try dir.run(["users", "--json"])
            let uid = try #require((try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [[String: Any]])?
                .first { $0["email"] as? String == "person2@example.com" }?["uid"] as? String)
            #expect(try dir.run(["account", "delete", uid]).status == 0)
            let every = ["LEDGER_CHECKPOINT_EVERY": "1"]
            #expect(try dir.run(["users", "--json"], env: every).status == 0)
            _ = try dir.login(email: "person1@example.com", password: "password number 1")  // a writer: the index again
            #expect(FileManager.default.fileExists(atPath: dir.path + "/events.jsonl.checkpoint"))
            try writeBytes(keys, to: dir.path + "/events.keys")
            let verified = try dir.run(["verify", "--json"], env: every)
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.map { $0["kind"] as? String } == ["erased-key-present"], "\(problems)")
            #expect((problems.first?["message"] as? String)?.contains("account-" + uid) == true, "\(problems)")
            #expect(!verified.stdout.contains("person2@"), "the report names the subject, never its data")
            #expect(!(try dir.run(["users", "--json"], env: every).stdout.contains("person2@")), "nothing back")
            let after = try dir.run(["verify", "--json"], env: every)
            #expect(after.status == 0, "the read destroyed the restored key: \(after)")
        }
    }
}
