import Foundation
import LedgerKit
import Testing

// `ledger account change-email` and `ledger account delete` end to end, on the file store and on
// PostgreSQL: the uniqueness of the new email (also under a race), the password check, the image file.

@Suite struct AccountEmailAndDeleteCLITests {
    private static let password = "correct horse email"

    private static func register(_ store: LifecycleStore, _ email: String, image: String? = nil) throws -> String {
        let registered = try store.run(LedgerDir.registerArguments(email: email, username: "Owner", image: image), password + "\n")
        try #require(registered.status == 0, "\(registered)")
        return try #require(try parseObject(registered.stdout)["uid"] as? String)
    }

    private static func changeEmail(_ store: LifecycleStore, _ email: String, to newEmail: String, password: String = password) throws -> ProcessResult {
        try store.run(["account", "change-email", "--email", email, "--new-email", newEmail, "--password-stdin", "--json"], password + "\n")
    }

    private static func login(_ store: LifecycleStore, _ email: String) throws -> ProcessResult {
        try store.run(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
    }

    private static func users(_ store: LifecycleStore) throws -> [[String: Any]] {
        try parseJSON(try store.run(["users", "--json"], nil).stdout) as? [[String: Any]] ?? []
    }

    private static func count(_ type: String, _ store: LifecycleStore) throws -> Int {
        try AccountLifecycleCLITests.events(store).filter { $0["type"] as? String == type }.count
    }

    // MARK: change-email

    static func changeEmail(_ store: LifecycleStore) throws {
        let email = uniqueEmail("old"), other = uniqueEmail("other"), newEmail = uniqueEmail("new")
        let uid = try register(store, email)
        _ = try register(store, other)

        let wrong = try changeEmail(store, email, to: newEmail, password: "not the password")
        let refusedLogin = try store.run(["login", "--email", email, "--password-stdin", "--json"], "not the password\n")
        #expect(wrong.status == 1 && wrong.stdout == refusedLogin.stdout, "the login's refusal: \(wrong)")
        #expect(signInReasons(in: try store.events(), email: email) == ["wrong-password", "wrong-password"], "counted for the lockout")

        let taken = try changeEmail(store, email, to: other.uppercased())
        #expect(taken.status == 1, "\(taken)")
        let refusal = try parseObject(taken.stdout)
        #expect(refusal["status"] as? String == "refused" && refusal["reason"] as? String == "email-already-in-use", "\(taken)")
        // A disabled account keeps its email; a deleted one frees it.
        let disabled = uniqueEmail("disabled"), deleted = uniqueEmail("deleted")
        _ = try register(store, disabled); _ = try register(store, deleted)
        #expect(try store.run(["account", "disable", disabled], nil).status == 0)
        #expect(try store.run(["account", "delete", deleted], nil).status == 0)
        let held = try changeEmail(store, email, to: disabled)
        #expect(held.status == 1 && (try? parseObject(held.stdout)["reason"] as? String) == "email-already-in-use", "\(held)")
        let invalid = try changeEmail(store, email, to: "not-an-email")
        #expect(invalid.status == 2 && invalid.stderr.contains("local@domain.tld"), "\(invalid)")
        #expect(try count("EmailChanged", store) == 0, "nothing appended")

        let freed = uniqueEmail("freed")
        #expect(try changeEmail(store, other, to: deleted).status == 0, "a deleted account's email is free")
        #expect(try changeEmail(store, deleted, to: freed).status == 0)
        let changed = try changeEmail(store, email, to: "  " + newEmail.uppercased())
        #expect(changed.status == 0, "\(changed)")
        let outcome = try parseObject(changed.stdout)
        #expect(keys(outcome) == ["status", "uid", "email", "previousEmail", "accountStatus", "endedSessions"])
        #expect(outcome["status"] as? String == "email-changed" && outcome["uid"] as? String == uid)
        #expect(outcome["email"] as? String == newEmail && outcome["previousEmail"] as? String == email)
        #expect(outcome["accountStatus"] as? String == "active")
        let event = try AccountLifecycleCLITests.events(store).last { $0["type"] as? String == "EmailChanged" }
        #expect(event?["stream"] as? String == "account-" + uid)

        #expect(try login(store, newEmail).status == 0, "sign-in with the new email")
        #expect(try login(store, email).status == 1, "not with the old one")
        #expect(try users(store).first { $0["uid"] as? String == uid }?["email"] as? String == newEmail)
        #expect(try changeEmail(store, email, to: uniqueEmail("again")).status == 1, "the old email opens no account")

        let again = try register(store, email)
        #expect(again != uid, "the old email registers a new account")
        #expect(try login(store, email).status == 0)
        let live = try users(store).filter { [email, newEmail].contains($0["email"] as? String ?? "") }
        #expect(Set(live.compactMap { $0["uid"] as? String }) == [uid, again])
        let verify = try store.run(["verify"], nil)
        #expect(verify.status == 0, "\(verify)")
    }

    @Test func changeEmailOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.changeEmail(AccountLifecycleCLITests.fileStore(dir)) }
    }

    @Test func changeEmailOnPostgres() throws {
        try withPostgresLedger { pg in try Self.changeEmail(AccountLifecycleCLITests.postgresStore(pg)) }
    }

    /// 8 accounts change to one new email at once: one wins, the others are refused
    /// `email-already-in-use`; then a sign-up races 4 more changes to another email: one winner.
    static func race(_ store: LifecycleStore) throws {
        let emails = (0..<12).map { uniqueEmail("racer\($0)") }
        let uids = try emails.map { try register(store, $0) }
        let target = uniqueEmail("target")
        let changes = try raceLedger(emails.prefix(8).map {
            (["account", "change-email", "--email", $0, "--new-email", target, "--password-stdin", "--json"] + store.storeArguments,
             password + "\n")
        })
        #expect(changes.filter { $0.status == 0 }.count == 1, "\(changes)")
        for refused in changes where refused.status != 0 {
            #expect(refused.status == 1 && (try? parseObject(refused.stdout)["reason"] as? String) == "email-already-in-use", "\(refused)")
        }
        let holders = try users(store).filter { $0["email"] as? String == target }
        #expect(holders.count == 1 && holders.first?["status"] as? String == "active")
        #expect(Set(uids).contains(holders.first?["uid"] as? String ?? ""))

        let contested = uniqueEmail("contested")
        let runs = [(LedgerDir.registerArguments(email: contested, username: "Late") + store.storeArguments, password + "\n")]
            + emails.suffix(4).map {
                (["account", "change-email", "--email", $0, "--new-email", contested, "--password-stdin", "--json"] + store.storeArguments,
                 password + "\n")
            }
        let results = try raceLedger(runs)
        #expect(results.filter { $0.status == 0 }.count == 1, "\(results)")
        #expect(results.allSatisfy { $0.status == 0 || $0.status == 1 }, "\(results)")
        #expect(try users(store).filter { $0["email"] as? String == contested && $0["status"] as? String != "deleted" }.count == 1)
        let verify = try store.run(["verify"], nil)
        #expect(verify.status == 0, "\(verify)")
    }

    @Test func parallelChangesToOneEmailOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.race(AccountLifecycleCLITests.fileStore(dir)) }
    }

    @Test func parallelChangesToOneEmailOnPostgres() throws {
        try withPostgresLedger { pg in try Self.race(AccountLifecycleCLITests.postgresStore(pg)) }
    }

    // MARK: delete

    static func delete(_ store: LifecycleStore, _ dir: LedgerDir) throws {
        let email = uniqueEmail("leaving")
        let uid = try register(store, email, image: samplePNG)
        #expect(try login(store, email).status == 0)
        let image = try #require(try users(store).first { $0["uid"] as? String == uid }?["profileImageName"] as? String)
        #expect(dir.imageFiles() == [image])

        let wrong = try store.run(["account", "delete", uid, "--password-stdin", "--json"], "not the password\n")
        #expect(wrong.status == 1, "\(wrong)")
        #expect(try parseObject(wrong.stdout)["status"] as? String == "refused")
        #expect(try count("AccountDeleted", store) == 0 && dir.imageFiles() == [image], "nothing deleted")
        #expect(signInReasons(in: try store.events(), email: email) == ["wrong-password"])

        let deleted = try store.run(["account", "delete", uid, "--password-stdin", "--json"], password + "\n")
        #expect(deleted.status == 0, "\(deleted)")
        let outcome = try parseObject(deleted.stdout)
        #expect(keys(outcome) == ["status", "uid", "email", "reason", "imageDeleted", "personalData", "endedSessions"])
        // Erased with it (data version 2, on both stores): the outcome names the account by its uid only.
        #expect(outcome["status"] as? String == "deleted" && outcome["uid"] as? String == uid && outcome["email"] is NSNull)
        #expect(outcome["personalData"] as? String == "erased")
        #expect(outcome["reason"] as? String == "user-request" && outcome["imageDeleted"] as? Bool == true)
        #expect((outcome["endedSessions"] as? [String])?.count == 2, "register's and login's sessions")
        #expect(dir.imageFiles().isEmpty, "the blob file is gone")
        let images = try parseJSON(try store.run(["images", "--json"], nil).stdout) as? [[String: Any]] ?? []
        #expect(images.first { $0["imageName"] as? String == image }?["status"] as? String == "deleted")
        #expect(try users(store).first { $0["uid"] as? String == uid }?["status"] as? String == "deleted")
        let active = try parseJSON(try store.run(["sessions", "--active", "--json"], nil).stdout) as? [[String: Any]] ?? []
        #expect(!active.contains { $0["uid"] as? String == uid })
        for action in ["disable", "enable", "sign-out-everywhere", "delete"] {
            let refused = try store.run(["account", action, uid, "--json"], nil)
            #expect(refused.status == 1 && (try? parseObject(refused.stdout)["reason"] as? String) == "account-deleted", "\(action): \(refused)")
        }
        #expect(try login(store, email).status == 1)
        let audit = try store.run(["audit", "--json"], nil)
        #expect(audit.status == 0, "no orphan, no missing file: \(audit)")

        // The email is free again; an operator deletes that account (no image).
        let again = try register(store, email)
        #expect(again != uid)
        let byOperator = try store.run(["account", "delete", email, "--json"], nil)
        #expect(byOperator.status == 0, "\(byOperator)")
        let second = try parseObject(byOperator.stdout)
        #expect(second["uid"] as? String == again && second["reason"] as? String == "operator" && second["imageDeleted"] as? Bool == false)

        let log = try AccountLifecycleCLITests.events(store)
        let deletions = log.filter { $0["type"] as? String == "AccountDeleted" }
        #expect(deletions.compactMap { ($0["data"] as? [String: Any])?["reason"] as? String } == ["user-request", "operator"])
        #expect(deletions.compactMap { $0["stream"] as? String } == ["account-" + uid, "account-" + again])
        let imageDeleted = log.filter { $0["type"] as? String == "ImageDeleted" }
        #expect(imageDeleted.compactMap { ($0["data"] as? [String: Any])?["reason"] as? String } == ["account-deleted"])
        let ended = log.filter { $0["type"] as? String == "SessionEnded" }.compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
        #expect(ended == ["account-deleted", "account-deleted", "account-deleted"])

        // A file left behind (as when its removal failed) is an orphan that `recover` removes.
        try writeBytes(try readBytes(samplePNG), to: dir.imageFolder + "/" + image)
        let orphan = try store.run(["audit", "--json"], nil)
        #expect(orphan.status == 1, "\(orphan)")
        let anomalies = try parseObject(orphan.stdout)["anomalies"] as? [[String: Any]] ?? []
        #expect(anomalies.map { $0["kind"] as? String } == ["orphan-image-file"] && anomalies.first?["imageName"] as? String == image)
        let recovered = try parseObject(try store.run(["recover", "--json"], nil).stdout)
        #expect(recovered["removedImages"] as? [String] == [image])
        #expect(dir.imageFiles().isEmpty)
        let verify = try store.run(["verify"], nil)
        #expect(verify.status == 0, "\(verify)")
    }

    @Test func deleteOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.delete(AccountLifecycleCLITests.fileStore(dir), dir) }
    }

    @Test func deleteOnPostgres() throws {
        try withPostgresLedger { pg in try Self.delete(AccountLifecycleCLITests.postgresStore(pg), pg.dir) }
    }
}
