import Foundation
import LedgerKit
import Testing

// `ledger login` under concurrency on the file store: per-email sign-in locks keep the lockout at
// five password checks however many attempts run at once, without making other emails wait; and a
// password hash is only taken from a line the next line links to.

@Suite struct SignInLockCLITests {
    private let password = "correct horse battery"

    @Test(arguments: [16, 64])
    func parallelWrongPasswordsGetFivePasswordChecks(count: Int) throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("race")
            #expect(try dir.register(email: email, password: password).status == 0)
            let results = try raceLogins(count, email: email, password: "not the password", arguments: ["--data", dir.path])
            let right = try dir.login(email: email, password: password)
            let log = String(decoding: try dir.logBytes(), as: UTF8.self)
            expectLockoutHeld(count: count, results: results, right: right, reasons: try signInReasons(inLog: log, email: email),
                              sessionsStarted: try dir.data(of: "SessionStarted").count)
            #expect(try dir.run(["verify"]).status == 0)
            let locks = (try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/locks")) ?? []
            #expect(!locks.contains { $0.hasSuffix(".signin") }, "released sign-in locks leave no file: \(locks)")
        }
    }

    @Test func aHeldSignInLockMakesOnlyItsOwnEmailWait() throws {
        try withLedgerDir { dir in
            let held = uniqueEmail("held"), otherEmail = uniqueEmail("other")
            for email in [held, otherEmail] { #expect(try dir.register(email: email, password: password).status == 0) }
            let lock = try FileSignInLocks(directory: dir.path).acquire(email: held)
            let lockFile = FileSignInLocks.path(directory: dir.path, email: held)
            #expect(FileManager.default.fileExists(atPath: lockFile))
            #expect(!lockFile.contains("@") && !lockFile.contains("held-"), "the lock file is named by a hash: \(lockFile)")
            let waiting = try dir.start(["login", "--email", held.uppercased(), "--password-stdin", "--json"], stdin: password + "\n")
            let other = try dir.start(["login", "--email", otherEmail, "--password-stdin", "--json"], stdin: password + "\n")
            // Another email's sign-in finishes while the lock is held (the bound only keeps a wrong lock from hanging the test).
            let finished = other.exits(within: 60)
            // The held email's sign-in cannot have read or written anything yet: it waits for the lock.
            #expect(try dir.data(of: "SignInFailed").isEmpty)
            #expect(try dir.data(of: "SessionStarted").count == (finished ? 3 : 2), "register's two, and the other email's when it finished")
            lock.release()
            #expect(finished, "another email's sign-in waited for this email's lock")
            let free = try other.wait()
            #expect(free.status == 0, "\(free)")
            let released = try waiting.wait()
            #expect(released.status == 0, "\(released)")
            #expect(try dir.data(of: "SessionStarted").count == 4)
        }
    }

    @Test func aPasswordHashPlantedInAnEditedLineIsRefusedAndWritersStop() throws {
        try withLedgerDir { dir in
            let victim = uniqueEmail("victim"), attacker = uniqueEmail("attacker")
            let attackerPassword = "attacker's own password"
            #expect(try dir.register(email: victim, password: password).status == 0)
            #expect(try dir.register(email: attacker, password: attackerPassword).status == 0)
            let lines = splitLines(try dir.logBytes()).map { String(decoding: $0, as: UTF8.self) }
            func hashOn(_ email: String) throws -> (line: Int, hash: String) {
                let at = try #require(lines.firstIndex { $0.contains(#""type":"AccountCreated""#) && $0.contains(#""email":"\#(email)""#) })
                let start = try #require(lines[at].range(of: #""passwordHash":""#)).upperBound
                return (at, String(lines[at][start...].prefix { $0 != "\"" }))
            }
            let (line, victimHash) = try hashOn(victim)
            let (_, attackerHash) = try hashOn(attacker)
            try editLine(dir.logPath, line: line) { $0.replacingOccurrences(of: victimHash, with: attackerHash) }
            let verify = try dir.run(["verify", "--json"])
            #expect(verify.status == 1, "\(verify)")
            #expect(verify.stdout.contains("broken-chain"), "\(verify)")

            let before = try dir.logBytes()
            let login = try dir.login(email: victim, password: attackerPassword)
            #expect(login.status == 1, "\(login)")
            #expect(login.stderr.contains("damaged at line \(line + 2): broken-chain"), "\(login)")
            #expect(login.stderr.contains("ledger verify"), "\(login)")
            #expect(login.stderrLines.count == 1, "\(login)")
            #expect(!login.stdout.contains("signed-in"), "\(login)")
            #expect(try dir.logBytes() == before, "nothing appended: no session, no refusal")
            // The index no longer vouches for the log: the next writer reads it, meets the break and refuses.
            let register = try dir.register(email: uniqueEmail("later"))
            #expect(register.status == 1, "\(register)")
            #expect(register.stderr.contains("broken-chain"), "\(register)")
            let again = try dir.login(email: victim, password: attackerPassword)
            #expect(again.status == 1, "\(again)")
            #expect(try dir.logBytes() == before)
        }
    }

    /// As above, and the next line's `prev` and hash recomputed too, so the link check passes: the
    /// index still knows the hash of the line it verified, and login refuses the planted one.
    @Test func aPasswordHashPlantedWithTheNextLineRechainedIsRefused() throws {
        try withLedgerDir { dir in
            let victim = uniqueEmail("victim"), attacker = uniqueEmail("attacker")
            let attackerPassword = "attacker's own password"
            #expect(try dir.register(email: victim, password: password).status == 0)
            #expect(try dir.register(email: attacker, password: attackerPassword).status == 0)
            let lines = splitLines(try dir.logBytes()).map { String(decoding: $0, as: UTF8.self) }
            func field(_ name: String, of line: String) throws -> String {
                let start = try #require(line.range(of: "\"\(name)\":\"")).upperBound
                return String(line[start...].prefix { $0 != "\"" })
            }
            func account(_ email: String) throws -> Int {
                try #require(lines.firstIndex { $0.contains(#""type":"AccountCreated""#) && $0.contains(#""email":"\#(email)""#) })
            }
            let line = try account(victim)
            let victimHash = try field("passwordHash", of: lines[line]), attackerHash = try field("passwordHash", of: lines[try account(attacker)])
            let oldHash = try field("hash", of: lines[line])
            try editLine(dir.logPath, line: line) { $0.replacingOccurrences(of: victimHash, with: attackerHash) }
            let newHash = try field("hash", of: String(decoding: splitLines(try dir.logBytes())[line], as: UTF8.self))
            try editLine(dir.logPath, line: line + 1) { $0.replacingOccurrences(of: oldHash, with: newHash) }

            let before = try dir.logBytes()
            let login = try dir.login(email: victim, password: attackerPassword)
            #expect(login.status == 1, "\(login)")
            #expect(login.stderr.contains("not the line the index verified"), "\(login)")
            #expect(try dir.logBytes() == before, "nothing appended")
            #expect(try dir.register(email: uniqueEmail("later")).status == 1, "the next writer meets the break")
        }
    }
}
