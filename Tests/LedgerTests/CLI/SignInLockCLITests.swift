import Foundation
import LedgerDomain
import LedgerKit
import Testing

// `ledger login` under concurrency on the file store: per-email sign-in locks keep the lockout at
// five password checks however many attempts run at once, without making other emails wait; every
// password check is counted whatever becomes of its process; and a password hash is only taken from
// a line the next line links to.

@Suite struct SignInLockCLITests {
    private let password = "correct horse battery"

    @Test(arguments: [16, 64])
    func parallelWrongPasswordsGetFivePasswordChecks(count: Int) throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("race")
            #expect(try dir.register(email: email, password: password).status == 0)
            let results = try raceLogins(count, email: email, password: "not the password", arguments: ["--data", dir.path])
            let right = try dir.login(email: email, password: password)
            expectLockoutHeld(count: count, results: results, right: right, reasons: signInReasons(in: try dir.events(), email: email),
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

    /// A check whose outcome never reaches the log (an injected error before `SessionStarted`) must
    /// not be a free guess: the next sign-in counts it as a wrong password first.
    @Test func aPasswordCheckInterruptedBeforeItsOutcomeIsCountedAsAWrongPassword() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("interrupted")
            #expect(try dir.register(email: email, password: password).status == 0)
            let interrupted = try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: password + "\n",
                                          env: ["LEDGER_FAILPOINTS": "SessionStarted=error"])
            #expect(interrupted.status == 3, "\(interrupted)")
            let marker = try readBytes(FileSignInLocks.path(directory: dir.path, email: email))
            #expect(!marker.isEmpty, "the check's marker outlives its process")
            #expect(!String(decoding: marker, as: UTF8.self).contains("@"), "the marker names ids, not the email")

            let next = try dir.login(email: email, password: password)
            #expect(next.status == 0, "\(next)")
            #expect(signInReasons(in: try dir.events(), email: email) == ["wrong-password"])
            let types = try dir.events().compactMap { $0["type"] as? String }
            #expect(types.suffix(2) == ["SignInFailed", "SessionStarted"], "counted before the next check: \(types)")
            #expect(!FileManager.default.fileExists(atPath: FileSignInLocks.path(directory: dir.path, email: email)))
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// With the outcome's write failing and the success step failing, a wrong and the right password
    /// cannot be told apart: the check is recorded before it runs, and
    /// a marker that cannot be written stops the sign-in before the password is checked.
    @Test func faultInjectionCannotTellARightPasswordFromAWrongOne() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("oracle")
            #expect(try dir.register(email: email, password: password).status == 0)
            let faults = ["LEDGER_IO_FAULTS": "write=1", "LEDGER_FAILPOINTS": "SessionStarted=error"]
            let results = try ["not the password", password].map { guess in
                try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: guess + "\n", env: faults)
            }
            #expect(results.allSatisfy { $0.status == 3 }, "\(results)")
            #expect(results[0].stderr == results[1].stderr, "\(results)")
            #expect(results[0].stdout == results[1].stdout, "\(results)")
        }
    }

    /// Registers `email`, then makes five wrong-password logins each stopped by `failpoint` (exiting
    /// with `status`): the right password is then refused as locked, and the log holds exactly five
    /// `wrong-password` refusals, then the `locked` one.
    private func fiveInterruptedWrongPasswordsLock(_ email: String, in dir: LedgerDir, failpoint: String, status: Int32,
                                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try dir.register(email: email, password: password).status == 0, sourceLocation: sourceLocation)
        for _ in 0..<5 {
            let stopped = try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: "not the password\n",
                                      env: ["LEDGER_FAILPOINTS": failpoint])
            #expect(stopped.status == status, "\(stopped)", sourceLocation: sourceLocation)
        }
        let right = try dir.login(email: email, password: password)
        #expect(right.status == 1, "\(right)", sourceLocation: sourceLocation)
        #expect(signInReasons(in: try dir.events(), email: email) == Array(repeating: "wrong-password", count: 5) + ["locked"],
                sourceLocation: sourceLocation)
    }

    /// Five wrong passwords whose `SignInFailed` could not be appended still lock the account.
    @Test func fiveInterruptedWrongPasswordsLockTheAccount() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("five")
            try fiveInterruptedWrongPasswordsLock(email, in: dir, failpoint: "SignInFailed=error", status: 3)
            #expect(try dir.data(of: "SessionStarted").count == 1, "only the registration's session")
        }
    }

    /// A process killed after its outcome is durable but before it cleared its marker is counted once:
    /// the marker names the streams its outcome went to.
    @Test func aCheckWhoseOutcomeIsDurableIsNotCountedTwice() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("once")
            try fiveInterruptedWrongPasswordsLock(email, in: dir, failpoint: "SignInFailed=crash", status: 137)

            let other = uniqueEmail("session")
            #expect(try dir.register(email: other, password: password).status == 0)
            let signedIn = try dir.run(["login", "--email", other, "--password-stdin", "--json"], stdin: password + "\n",
                                       env: ["LEDGER_FAILPOINTS": "SessionStarted=crash"])
            #expect(signedIn.status == 137, "\(signedIn)")
            #expect(try dir.login(email: other, password: password).status == 0)
            #expect(signInReasons(in: try dir.events(), email: other).isEmpty, "its session started: nothing to count")
        }
    }

    /// The value of `"name":"…"` in `line`.
    private static func field(_ name: String, of line: String) throws -> String {
        let start = try #require(line.range(of: "\"\(name)\":\"")).upperBound
        return String(line[start...].prefix { $0 != "\"" })
    }

    /// Registers a victim and an attacker, then puts the attacker's password hash in the victim's
    /// `AccountCreated` line (0-based `line`), sealed with the victim's key as an editor who can read
    /// the key store would, and recomputes that line's own hash (`oldHash`: the one it had).
    private func plantAttackersHash(in dir: LedgerDir, env: [String: String] = [:]) throws -> (victim: String, attackerPassword: String, line: Int, oldHash: String) {
        let victim = uniqueEmail("victim"), attacker = uniqueEmail("attacker")
        let attackerPassword = "attacker's own password"
        #expect(try dir.register(email: victim, password: password, env: env).status == 0)
        #expect(try dir.register(email: attacker, password: attackerPassword, env: env).status == 0)
        let events = try dir.events()  // the personal members opened
        func account(_ email: String) throws -> Int {
            try #require(events.firstIndex { $0["type"] as? String == "AccountCreated" && ($0["data"] as? [String: Any])?["email"] as? String == email })
        }
        let line = try account(victim)
        let attackerHash = try #require((events[try account(attacker)]["data"] as? [String: Any])?["passwordHash"] as? String)
        let oldHash = try #require(events[line]["hash"] as? String)
        let stored = try LogRewriting.envelopes(try dir.logBytes())[line]
        let planted = try FolderKeys(dir.path).edited(stored) { $0["passwordHash"] = .string(attackerHash) }
        try editLine(dir.logPath, line: line) { _ in LogRewriting.body(planted) }
        return (victim, attackerPassword, line, oldHash)
    }

    @Test func aPasswordHashPlantedInAnEditedLineIsRefusedAndWritersStop() throws {
        try withLedgerDir { dir in
            let (victim, attackerPassword, line, _) = try plantAttackersHash(in: dir)
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

    /// As above with the index's durable checkpoint covering the edited line: the sign-in removes it
    /// too, so the next writer still reads the whole log and refuses.
    @Test func aPlantedHashIsNotHiddenFromWritersByTheIndexCheckpoint() throws {
        try withLedgerDir { dir in
            let (victim, attackerPassword, _, _) = try plantAttackersHash(in: dir, env: ["LEDGER_CHECKPOINT_EVERY": "2"])
            let checkpoint = dir.logPath + ".index.checkpoint"
            #expect(FileSystem.exists(checkpoint))
            let login = try dir.login(email: victim, password: attackerPassword)
            #expect(login.status == 1 && login.stderr.contains("broken-chain"), "\(login)")
            #expect(!FileSystem.exists(checkpoint))
            let register = try dir.register(email: uniqueEmail("later"))
            #expect(register.status == 1 && register.stderr.contains("broken-chain"), "\(register)")
        }
    }

    /// As above, and the next line's `prev` and hash recomputed too, so the link check passes: the
    /// index still knows the hash of the line it verified, and login refuses the planted one.
    @Test func aPasswordHashPlantedWithTheNextLineRechainedIsRefused() throws {
        try withLedgerDir { dir in
            let (victim, attackerPassword, line, oldHash) = try plantAttackersHash(in: dir)
            let newHash = try Self.field("hash", of: String(decoding: splitLines(try dir.logBytes())[line], as: UTF8.self))
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
