import Foundation
import LedgerKit
import Testing

// `ledger account disable|enable|sign-out-everywhere` and `ledger user --history` end to end, on the
// file store and on PostgreSQL, and parallel logins while an account is disabled.

/// One store's commands: `run` adds the store's arguments; `log` is the log as stored (JSON lines);
/// `events` its lines parsed, their personal members opened (as readers see them).
struct LifecycleStore {
    let run: ([String], String?) throws -> ProcessResult
    let log: () throws -> String
    let events: () throws -> [[String: Any]]
    let storeArguments: [String]
}

@Suite struct AccountLifecycleCLITests {
    private static let password = "correct horse lifecycle"

    static func fileStore(_ dir: LedgerDir) -> LifecycleStore {
        LifecycleStore(run: { try dir.run($0, stdin: $1) }, log: { String(decoding: try dir.logBytes(), as: UTF8.self) },
                       events: { try dir.events() }, storeArguments: ["--data", dir.path])
    }

    static func postgresStore(_ pg: PostgresLedger) -> LifecycleStore {
        // Its export as stored; its events with their personal members opened with `ledger_keys`.
        LifecycleStore(run: { try pg.run($0, stdin: $1) }, log: { try pg.export().stdout },
                       events: { try pg.events() }, storeArguments: ["--data", pg.dir.path, "--store", pg.url.text])
    }

    static func events(_ store: LifecycleStore) throws -> [[String: Any]] { try store.events() }

    static func activeSessions(_ store: LifecycleStore, uid: String) throws -> [String] {
        let rows = try parseJSON(try store.run(["sessions", "--active", "--json"], nil).stdout) as? [[String: Any]] ?? []
        return rows.filter { $0["uid"] as? String == uid }.compactMap { $0["sessionId"] as? String }
    }

    /// register → login → disable (sessions ended, login refused as `disabled`, not counted for the
    /// lockout) → enable → login → sign-out-everywhere → `user --history` lists it all in order → verify.
    static func lifecycle(_ store: LifecycleStore) throws {
        let email = uniqueEmail("life")
        let registered = try store.run(LedgerDir.registerArguments(email: email, username: "Life"), password + "\n")
        try #require(registered.status == 0, "\(registered)")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let login = try store.run(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
        #expect(login.status == 0, "\(login)")
        let before = try activeSessions(store, uid: uid)
        #expect(before.count == 2, "register's and login's sessions")

        let disable = try store.run(["account", "disable", email, "--reason", "abuse report", "--json"], nil)
        #expect(disable.status == 0, "\(disable)")
        let disabled = try parseObject(disable.stdout)
        #expect(keys(disabled) == ["status", "uid", "email", "accountStatus", "endedSessions"])
        #expect(disabled["status"] as? String == "disabled" && disabled["accountStatus"] as? String == "disabled")
        #expect(Set(disabled["endedSessions"] as? [String] ?? []) == Set(before))
        #expect(try activeSessions(store, uid: uid).isEmpty)
        let user = try parseObject(try store.run(["user", uid, "--json"], nil).stdout)
        #expect(user["status"] as? String == "disabled")

        // Refused like a wrong password, with the true reason in the log, and more refusals than the
        // lockout allows do not lock the account.
        let wrong = try store.run(["login", "--email", uniqueEmail("nobody"), "--password-stdin", "--json"], password + "\n")
        for _ in 0..<6 {
            let refused = try store.run(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
            #expect(refused.status == 1 && refused.stdout == wrong.stdout && refused.stderr == wrong.stderr, "\(refused)")
        }
        let reasons = signInReasons(in: try store.events(), email: email)
        #expect(reasons == Array(repeating: "disabled", count: 6))
        let again = try store.run(["account", "disable", uid], nil)
        #expect(again.status == 1 && again.stderr.contains("already disabled") && again.stderr.split(separator: "\n").count == 1, "\(again)")

        let enable = try store.run(["account", "enable", uid, "--json"], nil)
        #expect(enable.status == 0, "\(enable)")
        #expect(try parseObject(enable.stdout)["accountStatus"] as? String == "active")
        let back = try store.run(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
        #expect(back.status == 0, "not locked by the disabled refusals: \(back)")
        let refusedEnable = try store.run(["account", "enable", uid, "--json"], nil)
        #expect(refusedEnable.status == 1)
        #expect(try parseObject(refusedEnable.stdout)["reason"] as? String == "not-disabled")

        let signOut = try store.run(["account", "sign-out-everywhere", email, "--json"], nil)
        #expect(signOut.status == 0, "\(signOut)")
        #expect((try parseObject(signOut.stdout)["endedSessions"] as? [String])?.count == 1)
        #expect(try activeSessions(store, uid: uid).isEmpty)

        let history = try store.run(["user", email, "--history", "--json"], nil)
        #expect(history.status == 0, "\(history)")
        let lines = history.stdout.split(separator: "\n").map(String.init)
        let stored = try store.log().split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy(stored.contains), "the lines as stored")
        let types = try lines.map { try #require(try parseJSON($0) as? [String: Any])["type"] as? String ?? "" }
        #expect(types == ["AccountCreated", "ProfileWritten", "SessionStarted", "SessionStarted", "AccountDisabled", "SessionEnded",
                          "SessionEnded"] + Array(repeating: "SignInFailed", count: 6)
                + ["AccountEnabled", "SessionStarted", "SessionEnded"])
        let seqs = try lines.map { try #require(try parseJSON($0) as? [String: Any])["seq"] as? Int ?? 0 }
        #expect(seqs == seqs.sorted())
        let reasonsEnded = try events(store).filter { $0["type"] as? String == "SessionEnded" }
            .compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
        #expect(reasonsEnded == ["account-disabled", "account-disabled", "revoked"])
        let disabledData = try events(store).first { $0["type"] as? String == "AccountDisabled" }?["data"] as? [String: Any]
        #expect(disabledData?["reason"] as? String == "abuse report")
        #expect(try events(store).first { $0["type"] as? String == "AccountDisabled" }?["stream"] as? String == "account-" + uid)

        let replay = try parseObject(try store.run(["replay", "--json"], nil).stdout)
        #expect((replay["users"] as? [String: Int])?["disabled"] == 0)
        let verify = try store.run(["verify"], nil)
        #expect(verify.status == 0, "\(verify)")
    }

    @Test func lifecycleOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.lifecycle(Self.fileStore(dir)) }
    }

    @Test func lifecycleOnPostgres() throws {
        try withPostgresLedger { pg in try Self.lifecycle(Self.postgresStore(pg)) }
    }

    static func refusals(_ store: LifecycleStore) throws {
        #expect(try store.run(["account", "disable", uniqueEmail("ghost")], nil).status == 1)
        #expect(try store.run(["account", "disable", "x@example.com", "--reason", "a\nb"], nil).status == 2)
        #expect(try store.run(["account", "enable", "x@example.com", "--reason", "why"], nil).status == 2)
        let typo = try store.run(["account", "disabel", "x@example.com"], nil)
        #expect(typo.status == 2 && typo.stderr.contains("did you mean disable?"), "\(typo)")
    }

    @Test func refusalsOnBothStores() throws {
        try withLedgerDir { dir in try Self.refusals(Self.fileStore(dir)) }
        try withPostgresLedger { pg in try Self.refusals(Self.postgresStore(pg)) }
    }

    /// Logins racing a disable: once the disable has returned, no session of the account is active,
    /// and every login either started its session before (ended by the disable) or was refused.
    static func race(_ store: LifecycleStore) throws {
        let email = uniqueEmail("race")
        let registered = try store.run(LedgerDir.registerArguments(email: email, username: "Race"), password + "\n")
        try #require(registered.status == 0, "\(registered)")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let logins = try (0..<6).map { _ in
            try start(Paths.ledger, ["login", "--email", email, "--password-stdin", "--json"] + store.storeArguments,
                      stdin: password + "\n", env: fastHashEnvironment)
        }
        let disable = try store.run(["account", "disable", uid, "--json"], nil)
        #expect(disable.status == 0, "\(disable)")
        #expect(try activeSessions(store, uid: uid).isEmpty, "no session is active once disable returned")
        let results = try logins.map { try $0.wait() }
        #expect(results.allSatisfy { $0.status == 0 || $0.status == 1 }, "\(results)")
        // Logins that finished after the disable was acknowledged were refused; any that started a
        // session did so before it, and the disable ended that session.
        #expect(try activeSessions(store, uid: uid).isEmpty)
        let started = Set(results.filter { $0.status == 0 }.compactMap { try? parseObject($0.stdout)["sessionId"] as? String })
        let ended = Set(try parseObject(disable.stdout)["endedSessions"] as? [String] ?? [])
        #expect(started.isSubset(of: ended), "every session a login started was ended by the disable")
        #expect(try store.run(["verify"], nil).status == 0)
    }

    @Test func parallelLoginsWhileDisablingOnTheFileStore() throws {
        try withLedgerDir { dir in try Self.race(Self.fileStore(dir)) }
    }

    @Test func parallelLoginsWhileDisablingOnPostgres() throws {
        try withPostgresLedger { pg in try Self.race(Self.postgresStore(pg)) }
    }
}
