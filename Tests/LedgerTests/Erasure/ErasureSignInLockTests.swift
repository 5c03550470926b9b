import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ErasureSignInLockTests

/// An erased account once held an email that another, live account holds now (it moved away, and
/// the other took it): the erasure removes the lock files of the erased emails, but that one is
/// the live account's, with the check left uncounted in it, and stays — when `account delete`
/// finishes, and when an erasure cut short is finished by `recover` or the next writer.
@Suite struct ErasureSignInLockTests {
    /// A folder where A moved from `moved@` to `a2@`, C took `moved@` and left a check uncounted
    /// in its lock file; returns A's uid and that lock file's path and bytes.
    private static func folder(_ dir: LedgerDir) throws -> (uid: String, lock: String, bytes: [UInt8], newEmailLock: String) {
        let registered = try dir.register(email: "moved@example.com", username: "Mover", password: "password mover")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let changed = try dir.run(["account", "change-email", "--email", "moved@example.com", "--new-email", "a2@example.com", "--password-stdin"],
                                  stdin: "password mover\n")
        #expect(changed.status == 0, "\(changed)")
        #expect(try dir.register(email: "moved@example.com", username: "Taker", password: "password taker").status == 0)
        // A's own lock file, for its current email: it goes with the erasure.
        _ = try dir.run(["login", "--email", "a2@example.com", "--password-stdin"], stdin: "not it\n", env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
        let failed = try dir.run(["login", "--email", "moved@example.com", "--password-stdin"], stdin: "not the password\n",
                                 env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
        #expect(failed.status != 0, "\(failed)")
        let lock = FileSignInLocks.path(directory: dir.path, email: "moved@example.com")
        let mine = FileSignInLocks.path(directory: dir.path, email: "a2@example.com")
        #expect(FileManager.default.fileExists(atPath: lock) && FileManager.default.fileExists(atPath: mine))
        return (uid, lock, try readBytes(lock), mine)
    }

    @Test func aDeletionKeepsTheLockOfAnEmailALiveAccountHoldsNow() throws {
        try withLedgerDir { dir in
            let (uid, lock, bytes, mine) = try Self.folder(dir)
            let deleted = try dir.run(["account", "delete", uid])
            #expect(deleted.status == 0, "\(deleted)")
            #expect(FileManager.default.fileExists(atPath: lock))
            #expect(try readBytes(lock) == bytes, "the live account's lock and its uncounted check stay")
            #expect(!FileManager.default.fileExists(atPath: mine), "the erased email's lock goes")
        }
    }

    /// `account erase` of an account deleted with its data kept, whose last email another account
    /// took since: that account's lock, and the check left in it, stay.
    @Test func erasingADeletedAccountKeepsTheLockOfItsEmailsNewHolder() throws {
        try withLedgerDir { dir in
            let registered = try dir.register(email: "z@example.com", username: "Zed", password: "password zed")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", uid, "--keep-personal-data"]).status == 0)
            #expect(try dir.register(email: "z@example.com", username: "Dee", password: "password dee").status == 0)
            let failed = try dir.run(["login", "--email", "z@example.com", "--password-stdin"], stdin: "not the password\n",
                                     env: ["LEDGER_FAILPOINTS": "SignInFailed=error"])
            #expect(failed.status != 0, "\(failed)")
            let lock = FileSignInLocks.path(directory: dir.path, email: "z@example.com")
            let bytes = try readBytes(lock)
            let erased = try dir.run(["account", "erase", uid])
            #expect(erased.status == 0, "\(erased)")
            #expect(FileManager.default.fileExists(atPath: lock))
            #expect(try readBytes(lock) == bytes, "the new holder's lock and its uncounted check stay")
        }
    }

    @Test(arguments: ["recover", "writer"])
    func anErasureCutShortKeepsItToo(_ finisher: String) throws {
        try withLedgerDir { dir in
            let (uid, lock, bytes, mine) = try Self.folder(dir)
            let killed = try dir.run(["account", "delete", uid], env: ["LEDGER_FAILPOINTS": "AccountDeleted=crash"])
            #expect(killed.status == 137, "\(killed)")
            #expect(FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
            if finisher == "recover" {
                #expect(try dir.run(["recover"]).status == 0)
            } else {
                #expect(try dir.register(email: "next@example.com", username: "Next", password: "password next").status == 0)
            }
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"), "the erasure was finished")
            let subject = SubjectID.account(try #require(UUIDBits(uuid: uid)))
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased)
            #expect(FileManager.default.fileExists(atPath: lock))
            #expect(try readBytes(lock) == bytes, "the live account's lock and its uncounted check stay")
            #expect(!FileManager.default.fileExists(atPath: mine), "the erased email's lock goes")
        }
    }
}
