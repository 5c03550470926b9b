import Foundation
import LedgerDomain
import LedgerKit
import Synchronization
import Testing

// Group commit: concurrent appends of one process share one write and one fdatasync, each caller
// acknowledged only once its own batch is durable; batches that touch one stream or email never
// share a group; a failed sync fails every batch it covered and poisons the store.

@Suite struct GroupCommitTests {
    /// A password hash of the form accounts store.
    private static let hash = "$y$j9T$abcdefghijklmnop$" + String(repeating: "A", count: 43)

    /// The drill's summary: acknowledged event ids, refusals' messages, groups written.
    private struct Summary {
        let acknowledged: [String], refused: [String], groups: Int
        init(_ result: ProcessResult) throws {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            acknowledged = try #require(json["acknowledged"] as? [String])
            refused = try #require(json["refused"] as? [[String: Any]]).compactMap { $0["message"] as? String }
            groups = try #require(json["groups"] as? Int)
        }
    }

    /// 64 threads × 20 single-event appends through one committer: every one acknowledged, the log
    /// holds each exactly once at seqs 1...1280 and verifies, and far fewer syncs than appends.
    @Test func sixtyFourThreadsShareSyncsAndLoseNothing() throws {
        try withTempDirectory { dir in
            let data = "\(dir)/data"
            let result = try run(Paths.drill, ["group", data, "64", "20"])
            #expect(result.status == 0, "\(result)")
            let summary = try Summary(result)
            #expect(summary.acknowledged.count == 1280 && summary.refused.isEmpty)
            #expect(summary.groups < 1280 / 2, "groups were written: \(summary.groups) for 1280 appends")
            let events = try FileEventStore(directory: data).readAll()
            #expect(events.map(\.seq) == Array(1...1280))
            #expect(Set(events.map(\.envelope.id)) == Set(summary.acknowledged))
            #expect(try ledger("verify", "--data", data).status == 0)
        }
    }

    /// The 30th fsync fails: every batch of that group is refused, and every later one (the store
    /// is poisoned); nothing refused is acknowledged later, and every acknowledged event is in the
    /// log, in front of the failed group's lines (written, never acknowledged).
    @Test func aFailedSyncFailsItsWholeGroupAndEveryLaterAppend() throws {
        try withTempDirectory { dir in
            let data = "\(dir)/data"
            let result = try run(Paths.drill, ["group", data, "16", "40"], env: ["LEDGER_IO_FAULTS": "fsync=30"])
            #expect(result.status == 0, "\(result)")
            let summary = try Summary(result)
            #expect(summary.acknowledged.count + summary.refused.count == 640)
            #expect(!summary.refused.isEmpty && summary.refused.allSatisfy { $0.contains("fsync") })
            let lines = try String(contentsOfFile: "\(data)/events.jsonl", encoding: .utf8).split(separator: "\n")
            let ids = lines.compactMap { line -> String? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            }
            // The acknowledged come first; after them only the failed group's lines (at most one per thread).
            #expect(Set(ids.prefix(summary.acknowledged.count)) == Set(summary.acknowledged))
            #expect(ids.count - summary.acknowledged.count <= 16)
            #expect(summary.groups < 640)
        }
    }

    /// Every batch a new account, so every group makes keys: the key store's sync of one group
    /// fails (the 12th fsync of the process: after the first group's, each group syncs the key
    /// store, then the log, so the even ones are the key store's). Every batch of that group is refused, none of its lines is written,
    /// and the store goes on (a key store that failed to sync keeps none of the keys it was given,
    /// so nothing is poisoned): every acknowledged event is in the log, and nothing else.
    @Test func aFailedKeyStoreSyncFailsItsWholeGroupAndWritesNothingOfIt() throws {
        try withTempDirectory { dir in
            let data = "\(dir)/data"
            let result = try run(Paths.drill, ["group", data, "16", "40", "accounts"], env: ["LEDGER_IO_FAULTS": "fsync=12"])
            #expect(result.status == 0, "\(result)")
            let summary = try Summary(result)
            #expect(summary.acknowledged.count + summary.refused.count == 640)
            #expect(!summary.refused.isEmpty && summary.refused.count <= 16, "\(summary.refused)")
            #expect(summary.refused.allSatisfy { $0.contains("the key store could not be synced") }, "\(summary.refused)")
            let events = try FileEventStore(directory: data).readAll()
            #expect(events.map(\.seq) == Array(1...summary.acknowledged.count))
            #expect(Set(events.map(\.envelope.id)) == Set(summary.acknowledged))
            #expect(try ledger("verify", "--data", data).status == 0)
        }
    }

    /// Threads register accounts for 50 shared emails at once through one committer (each batch
    /// under `.uniqueEmails`): exactly one account per email, however the batches were grouped.
    @Test func racingClaimsOfOneEmailHaveOneWinner() throws {
        try withTempDirectory { dir in
            let committer = GroupCommitter(store: FileEventStore(directory: "\(dir)/data"))
            let wins = Mutex<[String: Int]>([:])
            let done = DispatchGroup()
            for thread in 0..<16 {
                done.enter()
                // Threads of their own (not `concurrentPerform`, which runs no more at once than there are cores).
                Thread {
                    for n in 0..<50 {
                        let uid = Identifiers.uuid(fromRandom: SecureRandom().bytes(16)), email = "shared-\((n + thread) % 50)@example.com"
                        let created = LedgerEvent.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: Self.hash))
                        let part = StreamAppend([created], to: StreamCategory.registration.stream(uid), expected: .noStream)
                        if (try? committer.append([part], condition: .uniqueEmails)) != nil { wins.withLock { $0[email, default: 0] += 1 } }
                    }
                    done.leave()
                }.start()
            }
            done.wait()
            #expect(wins.withLock { $0 }.count == 50)
            #expect(wins.withLock { $0 }.values.allSatisfy { $0 == 1 }, "\(wins.withLock { $0 }.filter { $0.value != 1 })")
            #expect(committer.groupsWritten < 16 * 50)
        }
    }

    /// Which batches may share a group: none that touch one stream, claim one email, or name an
    /// email another claims (whose holder decides the key its personal data is sealed under).
    @Test func batchesThatTouchOneStreamOrEmailAreNotGrouped() {
        let uid1 = "0f0e0d0c-0b0a-4908-8706-050403020100", uid2 = "1f0e0d0c-0b0a-4908-8706-050403020100"
        func created(_ uid: String, _ email: String) -> GroupedAppend {
            GroupedAppend([StreamAppend([.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: Self.hash))],
                                        to: StreamCategory.registration.stream(uid), expected: .noStream)], condition: .uniqueEmails)
        }
        func failed(_ email: String) -> GroupedAppend {
            GroupedAppend([StreamAppend([.signInFailed(SignInFailed(email: email, reason: .unknownEmail))],
                                        to: StreamCategory.signin.stream(uid2), expected: .noStream)], condition: nil)
        }
        #expect(GroupedAppend.independent([created(uid1, "a@example.com"), created(uid2, "b@example.com")]))
        #expect(!GroupedAppend.independent([created(uid1, "a@example.com"), created(uid2, "a@example.com")]))
        #expect(!GroupedAppend.independent([created(uid1, "a@example.com"), created(uid1, "b@example.com")]))
        #expect(!GroupedAppend.independent([created(uid1, "a@example.com"), failed("a@example.com")]))
        #expect(GroupedAppend.independent([created(uid1, "a@example.com"), failed("c@example.com")]))
    }
}
