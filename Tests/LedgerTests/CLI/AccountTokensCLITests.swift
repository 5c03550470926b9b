import Foundation
import LedgerKit
import Testing

// `ledger account send-verification | verify-email | request-reset | reset-password` end to end on
// the file store and on PostgreSQL, with a fake mailer that appends each message to a mailbox file.

/// A mailbox outside the data directory, and the `LEDGER_MAILER` that fills it.
struct Mailbox {
    let folder: String
    var path: String { folder + "/mailbox" }
    /// The environment of a `ledger` with this mailer.
    var environment: [String: String] { ["LEDGER_MAILER": "sh \(folder)/mailer.sh"] }

    init(folder: String) throws {
        self.folder = folder
        try "cat >> '\(folder)/mailbox'\nprintf '\\n--end--\\n' >> '\(folder)/mailbox'\n".write(toFile: folder + "/mailer.sh", atomically: true, encoding: .utf8)
    }

    /// The messages, in the order they were sent.
    func messages() -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\n--end--\n").filter { !$0.isEmpty }
    }

    /// The token of a message: the line that is `<uid>.<64 hex digits>`.
    static func token(in message: String) -> String? {
        message.components(separatedBy: "\r\n").first { AccountToken.uid(of: $0) != nil }
    }

    /// The token of the last message.
    func lastToken() throws -> String { try #require(messages().last.flatMap(Self.token(in:)), "no token in the mailbox") }
}

/// One store with the mailer (`run`), the same without a mailer (`bare`), its data directory and mailbox.
struct MailedStore {
    let run: LifecycleStore
    let bare: LifecycleStore
    let dir: LedgerDir
    let mailbox: Mailbox
    /// Every output of the commands run through `call`.
    private(set) var outputs: [ProcessResult] = []

    init(_ make: (_ env: [String: String]) -> LifecycleStore, dir: LedgerDir, mailbox: Mailbox) {
        // A checkpoint after every read, so reads restore emailVerified from one and `verify` checks it.
        run = make(mailbox.environment.merging(["LEDGER_CHECKPOINT_EVERY": "1"]) { _, new in new }); bare = make([:])
        self.dir = dir; self.mailbox = mailbox
    }

    /// Runs `arguments` with the mailer, keeping its output for the canary.
    mutating func call(_ arguments: [String], _ stdin: String? = nil) throws -> ProcessResult {
        let result = try run.run(arguments, stdin)
        outputs.append(result)
        return result
    }

    /// Runs `arguments` on this store with `env` instead of the mailer.
    func run(_ arguments: [String], stdin: String? = nil, env: [String: String]) throws -> ProcessResult {
        try dir.run(arguments + run.storeArguments.dropFirst(2), stdin: stdin, env: env)
    }

    /// Runs `body` on the file store and on PostgreSQL.
    static func onBothStores(_ body: (inout MailedStore) throws -> Void) throws {
        try withTempDirectory("ledger-mail") { folder in
            let mailbox = try Mailbox(folder: folder)
            try withLedgerDir { dir in
                var store = MailedStore({ env in
                    LifecycleStore(run: { try dir.run($0, stdin: $1, env: env) }, log: { String(decoding: try dir.logBytes(), as: UTF8.self) },
                                   events: { try dir.events() }, storeArguments: ["--data", dir.path])
                }, dir: dir, mailbox: mailbox)
                try body(&store)
            }
        }
        try onPostgres { store, _ in try body(&store) }
    }

    /// Runs `body` on a PostgreSQL store (and its server, for edits by hand).
    static func onPostgres(_ body: (inout MailedStore, PostgresLedger) throws -> Void) throws {
        try withTempDirectory("ledger-mail") { folder in
            let mailbox = try Mailbox(folder: folder)
            try withPostgresLedger { pg in
                var store = MailedStore({ env in
                    LifecycleStore(run: { try pg.run($0, stdin: $1, env: env) }, log: { try pg.export().stdout },
                                   events: { try pg.events() }, storeArguments: ["--data", pg.dir.path, "--store", pg.url.text])
                }, dir: pg.dir, mailbox: mailbox)
                try body(&store, pg)
            }
        }
    }

    /// The canary: no token is in any file under the data directory, in the log as stored or as
    /// readers decode it, or in any output; each is in the mailbox.
    func expectNowhereButTheMailbox(_ tokens: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let log = try run.log(), opened = strings(in: try run.events())
        let files = dir.allFiles().map { (path: $0, text: String(decoding: (try? readBytes($0)) ?? [], as: UTF8.self)) }
        let mail = mailbox.messages().joined()
        for token in tokens {
            #expect(mail.contains(token), sourceLocation: sourceLocation)
            #expect(!log.contains(token), "the log holds a token", sourceLocation: sourceLocation)
            #expect(!opened.contains { $0.contains(token) }, "a personal member holds a token", sourceLocation: sourceLocation)
            for file in files where file.text.contains(token) { Issue.record("\(file.path) holds a token", sourceLocation: sourceLocation) }
            for output in outputs where output.stdout.contains(token) || output.stderr.contains(token) {
                Issue.record("an output holds a token: \(output)", sourceLocation: sourceLocation)
            }
        }
    }
}

@Suite struct AccountTokensCLITests {
    private static let password = "correct horse tokens"

    private static func register(_ store: inout MailedStore, _ label: String) throws -> (email: String, uid: String) {
        let email = uniqueEmail(label)
        let registered = try store.call(LedgerDir.registerArguments(email: email, username: label), password + "\n")
        try #require(registered.status == 0, "\(registered)")
        return (email, try #require(try parseObject(registered.stdout)["uid"] as? String))
    }

    private static func emailVerified(_ store: inout MailedStore, _ uid: String) throws -> Bool? {
        let users = try parseJSON(try store.call(["users", "--json"]).stdout) as? [[String: Any]] ?? []
        return users.first { $0["uid"] as? String == uid }?["emailVerified"] as? Bool
    }

    /// A token is accepted once; a newer one replaces it; used, replaced, unknown and malformed
    /// tokens get one refusal; the message is RFC 5322 with the token alone on its line.
    static func verification(_ store: inout MailedStore) throws {
        let alice = try register(&store, "alice")
        #expect(try emailVerified(&store, alice.uid) == false)
        let sent = try store.call(["account", "send-verification", "--email", alice.email])
        #expect(sent.status == 0 && sent.stdout == "if an account uses that email, a message is on its way\n" && sent.stderr.isEmpty, "\(sent)")
        let message = try #require(store.mailbox.messages().last)
        let lines = message.components(separatedBy: "\r\n")
        #expect(lines.prefix(3) == ["To: \(alice.email)", "From: ledger@localhost", "Subject: Verify your email address"])
        for header in ["Date: ", "Message-ID: <", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"] {
            #expect(lines.prefix { !$0.isEmpty }.contains { $0.hasPrefix(header) }, "\(header)")
        }
        #expect(message.contains("ledger account verify-email --token-stdin"))
        #expect(!message.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF line ends only")
        let token = try store.mailbox.lastToken()
        #expect(AccountToken.uid(of: token) == alice.uid)
        let requested = try AccountLifecycleCLITests.events(store.run).last
        #expect(requested?["type"] as? String == "EmailVerificationRequested" && requested?["stream"] as? String == "account-" + alice.uid)
        #expect((requested?["data"] as? [String: Any])?["tokenHash"] as? String == SHA256.hex(token))

        let verified = try store.call(["account", "verify-email", "--token-stdin", "--json"], token + "\n")
        #expect(verified.status == 0, "\(verified)")
        #expect(try parseObject(verified.stdout)["status"] as? String == "verified")
        #expect(try emailVerified(&store, alice.uid) == true)
        #expect(try parseObject(try store.call(["user", alice.uid, "--json"]).stdout)["emailVerified"] as? Bool == true)
        let used = try store.call(["account", "verify-email", "--token-stdin"], token + "\n")
        #expect(used.status == 1 && used.stdout.isEmpty, "\(used)")
        #expect(used.stderr == "ledger: \(AccountService.tokenRefusal)\n")
        let usedJSON = try store.call(["account", "verify-email", "--token-stdin", "--json"], token + "\n")
        #expect(try usedJSON.status == 1 && parseObject(usedJSON.stdout)["reason"] as? String == "token-refused")

        // A newer token replaces the older; a verified email gets no new one.
        let bob = try register(&store, "bob")
        #expect(try store.call(["account", "send-verification", "--email", bob.email]).status == 0)
        let first = try store.mailbox.lastToken()
        #expect(try store.call(["account", "send-verification", "--email", bob.email.uppercased()]).status == 0)
        let second = try store.mailbox.lastToken()
        #expect(first != second)
        let replaced = try store.call(["account", "verify-email", "--token-stdin"], first + "\n")
        #expect(replaced.status == used.status && replaced.stdout == used.stdout && replaced.stderr == used.stderr, "\(replaced)")
        let unknown = AccountToken(uid: bob.uid, random: SeededRandom(seed: 19)).value
        let bobsHex = String(second.split(separator: ".")[1])
        for bad in [unknown, alice.uid + "." + bobsHex, "not a token", second.uppercased(), second + "0", "",
                    Fixtures.uuid(404) + "." + bobsHex] {
            let refused = try store.call(["account", "verify-email", "--token-stdin"], bad + "\n")
            #expect(refused.status == used.status && refused.stdout == used.stdout && refused.stderr == used.stderr, "\(bad): \(refused)")
        }
        #expect(try emailVerified(&store, bob.uid) == false)
        let accepted = try store.call(["account", "verify-email", "--token-stdin"], "  " + second + "\r\n")
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try emailVerified(&store, bob.uid) == true)
        let mails = store.mailbox.messages().count
        #expect(try store.call(["account", "send-verification", "--email", bob.email]).stdout == sent.stdout)
        #expect(store.mailbox.messages().count == mails, "a verified email gets no message")

        #expect(try store.call(["account", "verify-email"], second + "\n").status == 2, "--token-stdin is required")
        #expect(try store.call(["account", "verify-email", "--token-stdin"], "").status == 2)
        #expect(try store.call(["account", "send-verification"]).status == 2)
        #expect(try store.call(["account", "verify-email", "--token-stdin", "--email", bob.email], second + "\n").status == 2)
        let verify = try store.call(["verify"])
        #expect(verify.status == 0, "\(verify)")
        try store.expectNowhereButTheMailbox([token, first, second])
    }

    @Test func verificationOnBothStores() throws {
        try MailedStore.onBothStores { try Self.verification(&$0) }
    }

    /// A reset ends every session and the lockout, the new password signs in, the old one not.
    static func reset(_ store: inout MailedStore) throws {
        let carol = try register(&store, "carol")
        #expect(try store.call(["login", "--email", carol.email, "--password-stdin", "--json"], password + "\n").status == 0)
        for _ in 0..<5 {
            #expect(try store.call(["login", "--email", carol.email, "--password-stdin"], "wrong password\n").status == 1)
        }
        let locked = try store.call(["login", "--email", carol.email, "--password-stdin"], password + "\n")
        #expect(locked.status == 1, "locked by five wrong passwords: \(locked)")
        let sessions = try parseJSON(try store.call(["sessions", "--active", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(sessions.filter { $0["uid"] as? String == carol.uid }.count == 2)

        let requested = try store.call(["account", "request-reset", "--email", carol.email, "--json"])
        #expect(requested.status == 0 && requested.stdout == "{\"status\":\"requested\"}\n", "\(requested)")
        let message = try #require(store.mailbox.messages().last)
        #expect(message.hasPrefix("To: \(carol.email)\r\n") && message.contains("ledger account reset-password --token-stdin"))
        let token = try store.mailbox.lastToken()
        let short = try store.call(["account", "reset-password", "--token-stdin"], token + "\nshort\n")
        #expect(short.status == 2 && short.stderr.contains("at least 8 characters"), "\(short)")
        #expect(try store.call(["account", "reset-password", "--token-stdin"], token + "\n").status == 2, "no new password line")

        let newPassword = "a brand new password"
        let reset = try store.call(["account", "reset-password", "--token-stdin", "--json"], token + "\n" + newPassword + "\n")
        #expect(reset.status == 0, "\(reset)")
        let outcome = try parseObject(reset.stdout)
        #expect(outcome["status"] as? String == "password-reset" && (outcome["endedSessions"] as? [String])?.count == 2)
        let after = try parseJSON(try store.call(["sessions", "--active", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(after.filter { $0["uid"] as? String == carol.uid }.isEmpty)
        let events = try AccountLifecycleCLITests.events(store.run)
        let changed = events.filter { $0["type"] as? String == "PasswordChanged" }
        #expect(changed.count == 1 && (changed.first?["data"] as? [String: Any])?["reason"] as? String == "reset")
        #expect(changed.first?["stream"] as? String == "account-" + carol.uid)
        let ended = events.filter { $0["type"] as? String == "SessionEnded" }.compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
        #expect(ended == ["password-changed", "password-changed"])

        let again = try store.call(["account", "reset-password", "--token-stdin"], token + "\n" + "yet another password\n")
        #expect(again.status == 1 && again.stderr == "ledger: \(AccountService.tokenRefusal)\n", "\(again)")
        let old = try store.call(["login", "--email", carol.email, "--password-stdin"], password + "\n")
        #expect(old.status == 1, "the old password no longer signs in")
        let signedIn = try store.call(["login", "--email", carol.email, "--password-stdin", "--json"], newPassword + "\n")
        #expect(signedIn.status == 0, "the lockout is lifted and the new password signs in: \(signedIn)")
        #expect(try store.call(["verify"]).status == 0)
        try store.expectNowhereButTheMailbox([token])
    }

    @Test func resetOnBothStores() throws {
        try MailedStore.onBothStores { try Self.reset(&$0) }
    }

    /// A disabled account's good tokens are refused by its state (`account-disabled`), and work again
    /// once it is enabled.
    static func disabledAccount(_ store: inout MailedStore) throws {
        let frank = try register(&store, "frank")
        #expect(try store.call(["account", "send-verification", "--email", frank.email]).status == 0)
        let verification = try store.mailbox.lastToken()
        #expect(try store.call(["account", "request-reset", "--email", frank.email]).status == 0)
        let reset = try store.mailbox.lastToken()
        #expect(try store.call(["account", "disable", frank.uid]).status == 0)
        let lines = try store.run.log().split(separator: "\n").count
        for (action, input) in [("verify-email", verification + "\n"), ("reset-password", reset + "\nthe new password\n")] {
            let refused = try store.call(["account", action, "--token-stdin", "--json"], input)
            #expect(try refused.status == 1 && parseObject(refused.stdout)["reason"] as? String == "account-disabled", "\(refused)")
        }
        #expect(try store.run.log().split(separator: "\n").count == lines, "nothing appended")
        #expect(try store.call(["account", "enable", frank.uid]).status == 0)
        #expect(try store.call(["account", "verify-email", "--token-stdin"], verification + "\n").status == 0)
        #expect(try store.call(["account", "reset-password", "--token-stdin"], reset + "\nthe new password\n").status == 0)
        try store.expectNowhereButTheMailbox([verification, reset])
    }

    @Test func disabledAccountOnBothStores() throws {
        try MailedStore.onBothStores { try Self.disabledAccount(&$0) }
    }

    /// Redemptions of one token racing: exactly one succeeds, the others get the refusal.
    static func parallelRedemptions(_ store: inout MailedStore) throws {
        let erin = try register(&store, "erin")
        #expect(try store.call(["account", "request-reset", "--email", erin.email]).status == 0)
        let token = try store.mailbox.lastToken()
        let racers = try (0..<4).map { n in
            try start(Paths.ledger, ["account", "reset-password", "--token-stdin", "--json"] + store.run.storeArguments,
                      stdin: token + "\nnew password \(n)\n", env: fastHashEnvironment)
        }
        let results = try racers.map { try $0.wait() }
        #expect(results.filter { $0.status == 0 }.count == 1, "\(results)")
        #expect(results.filter { $0.status == 1 && $0.stdout.contains("token-refused") }.count == 3, "\(results)")
        let changes = try AccountLifecycleCLITests.events(store.run).filter { $0["type"] as? String == "PasswordChanged" }
        #expect(changes.count == 1)
        #expect(try store.call(["verify"]).status == 0)
    }

    @Test func parallelRedemptionsOnBothStores() throws {
        try MailedStore.onBothStores { try Self.parallelRedemptions(&$0) }
    }

    /// Unknown, pending, deleted, disabled, verified and active emails get the same answer; only the
    /// eligible account's mailbox gets a message, and only it an event.
    static func noEnumeration(_ store: inout MailedStore) throws {
        let active = try register(&store, "active")
        let disabled = try register(&store, "disabled")
        #expect(try store.call(["account", "disable", disabled.uid]).status == 0)
        let verified = try register(&store, "verified")
        #expect(try store.call(["account", "send-verification", "--email", verified.email]).status == 0)
        #expect(try store.call(["account", "verify-email", "--token-stdin"], try store.mailbox.lastToken() + "\n").status == 0)
        let deleted = uniqueEmail("deleted")  // a registration that failed and was compensated
        let failed = try store.run(LedgerDir.registerArguments(email: deleted, username: "D"), stdin: password + "\n",
                                   env: ["LEDGER_FAILPOINTS": "ProfileWritten=error"])
        #expect(failed.status == 1, "\(failed)")
        let pending = uniqueEmail("pending")  // a registration whose compensation is pending
        let stuck = try store.run(LedgerDir.registerArguments(email: pending, username: "P", image: samplePNG), stdin: password + "\n",
                                  env: ["LEDGER_FAILPOINTS": "ProfileWritten=error,ImageDeleted=error"])
        #expect(stuck.status == 1, "\(stuck)")
        let statuses = userStatuses(try parseJSON(try store.call(["users", "--json"]).stdout))
        #expect(statuses.values.filter { $0 == "pending" }.count == 1, "\(statuses)")
        let emails = [uniqueEmail("unknown"), pending, deleted, disabled.email, verified.email, active.email]

        for action in ["send-verification", "request-reset"] {
            for json in [false, true] {
                var answers: [ProcessResult] = []
                for email in emails {
                    let before = store.mailbox.messages().count, lines = try store.run.log().split(separator: "\n").count
                    answers.append(try store.call(["account", action, "--email", email] + (json ? ["--json"] : [])))
                    let eligible = email == active.email || (action == "request-reset" && email == verified.email)
                    #expect(store.mailbox.messages().count == before + (eligible ? 1 : 0), "\(action) \(email)")
                    #expect(try store.run.log().split(separator: "\n").count == lines + (eligible ? 1 : 0), "\(action) \(email)")
                    if eligible { #expect(store.mailbox.messages().last?.hasPrefix("To: \(email)\r\n") == true) }
                }
                #expect(answers.allSatisfy { $0.status == 0 && $0.stdout == answers[0].stdout && $0.stderr == answers[0].stderr }, "\(answers)")
            }
        }
    }

    @Test func noEnumerationOnBothStores() throws {
        try MailedStore.onBothStores { try Self.noEnumeration(&$0) }
    }

    /// Without a mailer both requests fail (exit 3, saying how to set one) whatever the email, and
    /// append nothing; a failing mailer is an error, after the request was recorded.
    static func mailers(_ store: inout MailedStore) throws {
        let dave = try register(&store, "dave")
        let lines = try store.run.log().split(separator: "\n").count
        for action in ["send-verification", "request-reset"] {
            for email in [dave.email, uniqueEmail("nobody")] {
                let refused = try store.bare.run(["account", action, "--email", email], nil)
                #expect(refused.status == 3 && refused.stdout.isEmpty, "\(refused)")
                #expect(refused.stderr.contains("LEDGER_MAILER='/usr/sbin/sendmail -t'") && refused.stderr.split(separator: "\n").count == 1)
            }
        }
        #expect(try store.run.log().split(separator: "\n").count == lines, "nothing appended without a mailer")
        let failing = try store.run(["account", "request-reset", "--email", dave.email], env: ["LEDGER_MAILER": "cat > /dev/null; exit 7"])
        #expect(failing.status == 3 && failing.stderr.contains("mailer exited 7") && failing.stderr.contains("the request was recorded"), "\(failing)")
        let events = try AccountLifecycleCLITests.events(store.run)
        #expect(events.count == lines + 1 && events.last?["type"] as? String == "PasswordResetRequested")
        let killed = try store.run(["account", "send-verification", "--email", dave.email], env: ["LEDGER_MAILER": "cat > /dev/null; kill -9 $$"])
        #expect(killed.status == 3 && killed.stderr.contains("signal 9"), "\(killed)")
    }

    @Test func mailersOnBothStores() throws {
        try MailedStore.onBothStores { try Self.mailers(&$0) }
    }
}
