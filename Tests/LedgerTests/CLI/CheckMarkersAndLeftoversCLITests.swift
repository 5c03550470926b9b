import Foundation
import LedgerKit
import Testing

// Issue 27, items 14 and 15 through the built `ledger`: a right password is never counted as wrong
// because its process died after its outcome was durable (the pending-check record is settled by the
// log, on the file store and PostgreSQL), and `recover` removes the temporary files a crash leaves.

@Suite struct CheckMarkersAndLeftoversCLITests {
    /// The `SignInFailed` reasons the log holds for `email`.
    static func failures(_ store: LifecycleStore, _ email: String) throws -> [String] {
        try AccountLifecycleCLITests.events(store).compactMap { event in
            guard event["type"] as? String == "SignInFailed", let data = event["data"] as? [String: Any],
                  data["email"] as? String == email else { return nil }
            return data["reason"] as? String
        }
    }

    /// An account command killed right after its batch is durable (`LEDGER_FAILPOINTS=…=crash`) leaves
    /// its pending-check record; the next sign-in finds the outcome in the log and counts nothing.
    static func killedAfterTheOutcome(_ store: LifecycleStore) throws {
        let email = uniqueEmail("marker"), old = "correct horse marker", new = "battery staple marker"
        let registered = try store.run(LedgerDir.registerArguments(email: email, username: "Marker"), old + "\n")
        try #require(registered.status == 0, "\(registered)")
        let crash = ["LEDGER_FAILPOINTS": "PasswordChanged=crash"]
        let killed = try store.runWith(["account", "change-password", "--email", email, "--password-stdin"], old + "\n" + new + "\n", crash)
        #expect(killed.status == 128 + SIGKILL, "\(killed)")
        #expect(try AccountLifecycleCLITests.events(store).contains { $0["type"] as? String == "PasswordChanged" })
        let login = try store.run(["login", "--email", email, "--password-stdin", "--json"], new + "\n")
        #expect(login.status == 0, "\(login)")
        #expect(try failures(store, email).isEmpty, "the right password of the killed command was not counted")

        // The same for an owner's delete: its check is not counted after the kill either.
        let deleting = try store.runWith(["account", "delete", email, "--password-stdin"], new + "\n", ["LEDGER_FAILPOINTS": "AccountDeleted=crash"])
        #expect(deleting.status == 128 + SIGKILL, "\(deleting)")
        let after = try store.run(["login", "--email", email, "--password-stdin", "--json"], new + "\n")
        #expect(after.status == 1, "the account is deleted: \(after)")
        #expect(try failures(store, email) == ["unknown-email"], "only the sign-in after the delete, for what it is")
    }

    @Test func aCheckWhoseOutcomeIsDurableIsNotCountedOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.killedAfterTheOutcome(AccountLifecycleCLITests.fileStore(dir)) }
    }

    @Test func aCheckWhoseOutcomeIsDurableIsNotCountedOnPostgres() throws {
        try withPostgresLedger { pg in try Self.killedAfterTheOutcome(AccountLifecycleCLITests.postgresStore(pg)) }
    }

    /// A check killed before its outcome (the marker written, nothing appended) still counts: the
    /// account-version rule does not let a wrong password escape the lockout.
    @Test func aCheckWithoutAnOutcomeStillCounts() throws {
        try withLedgerDir { dir in
            let store = AccountLifecycleCLITests.fileStore(dir)
            let email = uniqueEmail("unsettled"), password = "correct horse unsettled"
            #expect(try store.run(LedgerDir.registerArguments(email: email, username: "U"), password + "\n").status == 0)
            let failing = try store.runWith(["account", "change-password", "--email", email, "--password-stdin"],
                                            password + "\nanother good password\n", ["LEDGER_FAILPOINTS": "PasswordChanged=power-loss"])
            #expect(failing.status == 128 + SIGKILL, "\(failing)")
            #expect(try !AccountLifecycleCLITests.events(store).contains { $0["type"] as? String == "PasswordChanged" })
            #expect(try store.run(["login", "--email", email, "--password-stdin"], password + "\n").status == 0)
            #expect(try Self.failures(store, email) == ["wrong-password"], "the check without an outcome counts once")
        }
    }

    /// A wrong current password whose `SignInFailed` could not be appended leaves its record; a reset
    /// requested by anyone meanwhile grows the account stream, but is no outcome of a checked
    /// password: the next sign-in still counts the guess (found by an attack on the first fix).
    @Test func anUnrelatedEventDoesNotSettleAWrongGuess() throws {
        try withTempDirectory("ledger-mailbox") { folder in
            try withLedgerDir { dir in
                let store = AccountLifecycleCLITests.fileStore(dir)
                let email = uniqueEmail("guess"), other = uniqueEmail("other"), password = "correct horse guess"
                for address in [email, other] {
                    #expect(try store.run(LedgerDir.registerArguments(email: address, username: "G"), password + "\n").status == 0)
                }
                let guess = try store.runWith(["account", "change-password", "--email", email, "--password-stdin", "--json"],
                                              "wrong guess 1\nanother good password\n", ["LEDGER_FAILPOINTS": "SignInFailed=error"])
                #expect(guess.status == 3, "\(guess)")
                let right = try store.runWith(["account", "change-password", "--email", other, "--password-stdin", "--json"],
                                              password + "\nanother good password\n", ["LEDGER_FAILPOINTS": "PasswordChanged=error"])
                #expect(right.status == guess.status && right.stdout == guess.stdout && right.stderr == guess.stderr,
                        "a failed step does not tell right from wrong: \(right)\n\(guess)")
                let mailbox = try Mailbox(folder: folder)
                #expect(try dir.run(["account", "request-reset", "--email", email], env: mailbox.environment).status == 0)
                #expect(try store.run(["login", "--email", email, "--password-stdin"], password + "\n").status == 0)
                #expect(try Self.failures(store, email) == ["wrong-password"], "the guess is counted once")
            }
        }
    }

    /// `recover` removes the temporary file of a checkpoint whose writer died, keeps one whose writer
    /// runs (it holds the file's lock), and says so in `--json`. A crash is a reboot: the pid in a
    /// leftover's name may then belong to an unrelated live process (here: this one, holding no lock
    /// on the file), and the file is removed all the same (found by `Tests/Drills/crash_states.py`).
    @Test func recoverRemovesTemporaryFilesOfDeadWriters() throws {
        try withLedgerDir { dir in
            #expect(try dir.run(LedgerDir.registerArguments(email: uniqueEmail("tmp"), username: "T"), stdin: "correct horse tmp\n").status == 0)
            let gone = Process()
            gone.executableURL = URL(fileURLWithPath: "/bin/true")
            try gone.run()
            gone.waitUntilExit()
            let dead = "events.jsonl.index.checkpoint.tmp-\(gone.processIdentifier)"
            let reused = "events.jsonl.index.checkpoint.tmp-\(getpid())"
            let live = "events.jsonl.checkpoint.tmp-\(getpid())"
            let keys = "events.keys.tmp-\(gone.processIdentifier)"  // the key store's growth, cut by a crash
            let signed = "events.jsonl.witnesses.tmp-\(gone.processIdentifier)"  // head --key's record of witnessed sizes, cut by a crash
            for name in [dead, reused, live, keys, signed] { try writeBytes(Array(repeating: 7, count: 4096), to: dir.path + "/" + name) }
            let writer = open(dir.path + "/" + live, O_RDONLY | O_CLOEXEC)
            try #require(writer >= 0 && flock(writer, LOCK_EX) == 0)
            defer { close(writer) }
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["removedTemporaryFiles"] as? [String] == [dead, reused, keys, signed].sorted(), "\(recovered)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + dead))
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + reused), "a live pid holding no lock is no writer")
            #expect(FileManager.default.fileExists(atPath: dir.path + "/" + live), "a running writer's file stays")
            #expect(try parseObject(try dir.run(["recover", "--json"]).stdout)["removedTemporaryFiles"] as? [String] == [])
        }
    }
}

extension LifecycleStore {
    /// Runs `arguments` on this store with `env` added.
    func runWith(_ arguments: [String], _ stdin: String?, _ env: [String: String]) throws -> ProcessResult {
        let (dataIndex, rest) = (storeArguments.firstIndex(of: "--data")!, storeArguments)
        let dir = LedgerDir(path: rest[dataIndex + 1])
        return try dir.run(arguments + Array(storeArguments.dropFirst(2)), stdin: stdin, env: env)
    }
}
