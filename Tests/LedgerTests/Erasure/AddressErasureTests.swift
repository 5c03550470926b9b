import Foundation
import LedgerDomain
import LedgerKit
import Testing

// `ledger erase`: a stranger's failed sign-ins and rejected registration are forgotten by the key
// of their day, nothing of them left in any file or output, the day going on under its successor;
// and expiry erases the days and deleted accounts past the retention period, except legal holds.

@Suite struct AddressErasureTests {
    @Test func aStrangersAddressIsForgottenOnTheFileStore() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            let stranger = "stuffed.stranger@example.net", typo = "Rejected Stranger@@example.net"
            #expect(try dir.register(email: "olive@example.com", username: "Olive").status == 0)
            for _ in 0..<2 { #expect(try dir.login(email: stranger, password: "guessed password").status == 1) }
            #expect(try dir.register(email: typo, username: "Typo").status == 1)
            #expect(try dir.login(email: "olive@example.com", password: "guessed password").status == 1)

            let marker = PendingCheck(attempt: UUID().uuidString.lowercased(), sessionId: UUID().uuidString.lowercased()).marker
            try Data(marker).write(to: URL(fileURLWithPath: FileSignInLocks.path(directory: dir.path, email: stranger)))
            let live = try dir.run(["erase", "--email", "OLIVE@example.com", "--json"])
            #expect(live.status == 1 && (try? parseObject(live.stdout)["reason"] as? String) == "account-live", "\(live)")
            let erased = try dir.run(["erase", "--email", stranger, "--json"])
            #expect(erased.status == 0, "\(erased)")
            let subjects = try #require(try parseObject(erased.stdout)["subjects"] as? [String])
            #expect(subjects.count == 1 && subjects[0].hasPrefix("address-"), "\(subjects)")
            // The day's key is gone: the rejected registration of that day with it; Olive's failure is hers.
            var outputs = ""
            for command in [["audit"], ["audit", "--json"], ["events", "--json"], ["export"], ["users", "--json"]] {
                outputs += try dir.run(command).stdout
            }
            let names = FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []
            let files = names.compactMap { try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + $0)) }
                .map { String(decoding: $0, as: UTF8.self).lowercased() } + names
            for secret in [stranger, "rejected stranger", SHA256.hex(Array(stranger.utf8))] {
                #expect(!outputs.lowercased().contains(secret), "an output holds \(secret)")
                #expect(!files.contains { $0.contains(secret) }, "a file holds \(secret)")
            }
            #expect(try dir.run(["audit"]).stdout.contains("olive@example.com"), "the account's own failure stays")
            // The day goes on under its successor; verify still passes, also without keys.
            #expect(try dir.login(email: "later.stranger@example.net", password: "guessed password").status == 1)
            #expect(try readText(dir.logPath).contains("\"subject\":\"\(subjects[0]).1\""))
            #expect(try dir.run(["audit"]).stdout.contains("later.stranger@example.net"))
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try pythonTool("verify_log.py", [dir.logPath]).status == 0)
            let again = try dir.run(["erase", "--email", stranger, "--json"])
            #expect(again.status == 0 && (try? parseObject(again.stdout)["status"] as? String) == "nothing-to-erase", "\(again)")
        }
    }

    @Test func expiryErasesOldDaysAndDeletedAccountsButNotALegalHold() throws {
        try withTempDirectory { path in
            let past = FixedClock(Timestamp(rfc3339: "2026-10-01T09:00:00.000Z")!, step: 1)
            let store = FileEventStore(directory: path, clock: past, random: SeededRandom(seed: 5))
            let accounts = AccountService(store: store, signInLocks: FileSignInLocks(directory: path), clock: past)
            func account(_ n: Int) throws -> String {
                let uid = Fixtures.uuid(100 + n)
                _ = try store.append([StreamAppend([.accountCreated(AccountCreated(uid: uid, email: "old\(n)@example.com", passwordHash: "$y$j9T$s$h")),
                                                    .profileWritten(ProfileWritten(uid: uid, email: "old\(n)@example.com", userName: "Old \(n)",
                                                                                   profileImageName: nil, createdAt: past.now()))],
                                                   to: StreamCategory.registration.stream(Fixtures.uuid(200 + n)), expected: .noStream)],
                                     condition: .uniqueEmails)
                return uid
            }
            let gone = try account(1), held = try account(2), live = try account(3)
            _ = try store.append([StreamAppend([.signInFailed(SignInFailed(email: "old.stranger@example.com", reason: .unknownEmail))],
                                               to: StreamCategory.signin.stream(Fixtures.uuid(300)), expected: .noStream)], condition: nil)
            // `gone` is a compensated registration (its account deleted, its data not erased);
            // `held` was deleted keeping its data (a legal hold).
            _ = try store.append([StreamAppend([.accountDeleted(AccountDeleted(uid: gone))],
                                               to: StreamCategory.registration.stream(Fixtures.uuid(201)), expected: .exactly(2))], condition: nil)
            _ = try accounts.run(.delete(reason: .operator, keepPersonalData: true), account: held)
            // A day within the retention period.
            let now = FixedClock(Timestamp(rfc3339: "2026-12-01T09:00:00.000Z")!, step: 1)
            let recent = FileEventStore(directory: path, clock: now, random: SeededRandom(seed: 6))
            _ = try recent.append([StreamAppend([.signInFailed(SignInFailed(email: "new.stranger@example.com", reason: .unknownEmail))],
                                                to: StreamCategory.signin.stream(Fixtures.uuid(301)), expected: .noStream)], condition: nil)
            let outcome = try ErasureService(store: recent, clock: now).eraseExpired(olderThan: 30)
            #expect(outcome.subjects.map(\.text) == ["address-2026-10-01", "account-" + gone], "\(outcome.subjects)")
            let users = try recent.currentViews(now: now.now(), usingCheckpoint: false).users
            #expect(users.row(uid: gone)?.email == "" && users.row(uid: held)?.email == "old2@example.com", "the legal hold stays")
            #expect(users.row(uid: live)?.email == "old3@example.com")
            let signIns = try recent.currentViews(now: now.now(), usingCheckpoint: false).signIns.rows.map(\.email)
            #expect(signIns.contains("new.stranger@example.com") && !signIns.contains("old.stranger@example.com"), "\(signIns)")
            #expect(try ErasureService(store: recent, clock: now).eraseExpired(olderThan: 30).subjects.isEmpty, "nothing twice")
        }
    }
}
