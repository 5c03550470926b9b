import Foundation
import LedgerDomain
import LedgerKit
import Testing

// `ledger account change-password` end to end through the built `ledger`, on the file store and on
// PostgreSQL: the old sessions end, only the new password signs in (from the index, the PostgreSQL
// tables and the fold alike), a wrong current password is a counted refused sign-in, a planted hash
// on the PasswordChanged line is damage, and neither password reaches a file or an output.

@Suite struct ChangePasswordCLITests {
    /// One store's commands, and every output they gave (for the canary check).
    final class Recorded {
        let store: LifecycleStore
        let dir: LedgerDir
        var outputs: [ProcessResult] = []
        init(_ store: LifecycleStore, _ dir: LedgerDir) { self.store = store; self.dir = dir }

        @discardableResult
        func run(_ arguments: [String], _ stdin: String? = nil) throws -> ProcessResult {
            let result = try store.run(arguments, stdin)
            outputs.append(result)
            return result
        }

        func login(_ email: String, _ password: String) throws -> ProcessResult {
            try run(["login", "--email", email, "--password-stdin", "--json"], password + "\n")
        }

        func changePassword(_ email: String, from current: String, to new: String) throws -> ProcessResult {
            try run(["account", "change-password", "--email", email, "--password-stdin", "--json"], current + "\n" + new + "\n")
        }
    }

    /// True when `result` is login's refusal with `--json`: exit 1, `{status: refused, message}`.
    static func isRefusal(_ result: ProcessResult) -> Bool {
        let object = try? parseObject(result.stdout)
        return result.status == 1 && object?["status"] as? String == "refused" && object?["message"] as? String == SessionService.refusal
    }

    private static func file(_ dir: LedgerDir) -> Recorded { Recorded(AccountLifecycleCLITests.fileStore(dir), dir) }
    private static func postgres(_ pg: PostgresLedger) -> Recorded { Recorded(AccountLifecycleCLITests.postgresStore(pg), pg.dir) }

    /// Passwords unique to one test: the canaries.
    private static func passwords() -> (old: String, new: String) {
        ("old-canary-\(UUID().uuidString)", "new-canary-\(UUID().uuidString)")
    }

    /// register → login (session A) → change-password: both sessions ended (`password-changed`),
    /// the old password refused, the new one signs in, `user --history` shows the change, `verify` passes.
    static func change(_ ledger: Recorded, old: String, new: String) throws -> (email: String, uid: String) {
        let email = uniqueEmail("change")
        let registered = try ledger.run(LedgerDir.registerArguments(email: email, username: "Change"), old + "\n")
        try #require(registered.status == 0, "\(registered)")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let login = try ledger.login(email, old)
        #expect(login.status == 0, "\(login)")
        let before = try AccountLifecycleCLITests.activeSessions(ledger.store, uid: uid)
        #expect(before.count == 2, "register's session and session A")

        let changed = try ledger.changePassword(email, from: old, to: new)
        #expect(changed.status == 0, "\(changed)")
        let outcome = try parseObject(changed.stdout)
        #expect(keys(outcome) == ["status", "uid", "email", "accountStatus", "endedSessions"])
        #expect(outcome["status"] as? String == "password-changed" && outcome["accountStatus"] as? String == "active")
        #expect(outcome["uid"] as? String == uid && outcome["email"] as? String == email)
        #expect(Set(outcome["endedSessions"] as? [String] ?? []) == Set(before))
        #expect(try AccountLifecycleCLITests.activeSessions(ledger.store, uid: uid).isEmpty)

        let events = try AccountLifecycleCLITests.events(ledger.store)
        let change = events.filter { $0["type"] as? String == "PasswordChanged" }
        #expect(change.count == 1 && change.first?["stream"] as? String == "account-" + uid)
        #expect((change.first?["data"] as? [String: Any])?["reason"] as? String == "change")
        let ended = events.filter { $0["type"] as? String == "SessionEnded" }.compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
        #expect(ended == ["password-changed", "password-changed"])
        // One append: the change and the ended sessions are consecutive lines.
        let seqs = events.filter { ["PasswordChanged", "SessionEnded"].contains($0["type"] as? String) }.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + 3)))

        let refused = try ledger.login(email, old)
        #expect(isRefusal(refused), "\(refused)")
        let signedIn = try ledger.login(email, new)
        #expect(signedIn.status == 0, "\(signedIn)")
        let history = try ledger.run(["user", email, "--history", "--json"])
        #expect(history.stdout.contains(#""type":"PasswordChanged""#), "\(history)")
        let verify = try ledger.run(["verify"])
        #expect(verify.status == 0, "\(verify)")
        return (email, uid)
    }

    /// Neither password in any file under the data directory, in the log as stored or as readers
    /// decode it (its personal members opened), or in any output.
    static func expectNoCanary(_ ledger: Recorded, _ secrets: [String]) throws {
        let stored = [try ledger.store.log()] + (try ledger.dir.allFiles().map { String(decoding: try readBytes($0), as: UTF8.self) })
            + strings(in: try ledger.store.events())
        let outputs = ledger.outputs.flatMap { [$0.stdout, $0.stderr] }
        for secret in secrets {
            #expect(!stored.contains { $0.contains(secret) }, "a password in a data file or the log")
            #expect(!outputs.contains { $0.contains(secret) }, "a password in an output")
        }
    }

    @Test func changePasswordOnTheFileStoreAlsoWithoutTheIndex() throws {
        try withLedgerDir { dir in
            let ledger = Self.file(dir), (old, new) = Self.passwords()
            let (email, _) = try Self.change(ledger, old: old, new: new)
            #expect(FileSystem.exists(dir.logPath + ".index"))
            // The index removed: the next sign-in rebuilds it from the log; with the index off, every
            // sign-in folds the log. Either way only the new password signs in.
            for env in [[:], ["LEDGER_STORE_INDEX": "0"]] {
                if env.isEmpty { try FileManager.default.removeItem(atPath: dir.logPath + ".index") }
                let refused = try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: old + "\n", env: env)
                #expect(Self.isRefusal(refused), "\(env): \(refused)")
                let signedIn = try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: new + "\n", env: env)
                #expect(signedIn.status == 0, "\(env): \(signedIn)")
                ledger.outputs += [refused, signedIn]
            }
            #expect(try ledger.run(["verify"]).status == 0)
            try Self.expectNoCanary(ledger, [old, new])
        }
    }

    @Test func changePasswordOnPostgres() throws {
        try withPostgresLedger { pg in
            let ledger = Self.postgres(pg), (old, new) = Self.passwords()
            _ = try Self.change(ledger, old: old, new: new)
            try Self.expectNoCanary(ledger, [old, new])
        }
    }

    /// A wrong current password gets login's refusal (exit 1) and a `SignInFailed(wrong-password)`;
    /// five of them lock the email, so the right password is then refused by login and by
    /// change-password alike. A new password the sign-up rule refuses is a usage error, appending nothing.
    static func wrongCurrentPassword(_ ledger: Recorded) throws {
        let (old, new) = passwords()
        let email = uniqueEmail("wrong")
        #expect(try ledger.run(LedgerDir.registerArguments(email: email, username: "Wrong"), old + "\n").status == 0)
        let loginRefusal = try ledger.login(uniqueEmail("nobody"), "not the password")
        #expect(isRefusal(loginRefusal), "\(loginRefusal)")

        let before = try ledger.store.log()
        let short = try ledger.changePassword(email, from: old, to: "short")
        #expect(short.status == 2 && short.stderr.contains("at least 8 characters"), "\(short)")
        let oneLine = try ledger.run(["account", "change-password", "--email", email, "--password-stdin"], old + "\n")
        #expect(oneLine.status == 2 && oneLine.stderr.contains("the new one"), "\(oneLine)")
        let noEmail = try ledger.run(["account", "change-password", "--password-stdin"], old + "\n" + new + "\n")
        #expect(noEmail.status == 2 && noEmail.stderr.contains("--email"), "\(noEmail)")
        #expect(try ledger.store.log() == before, "nothing appended")

        for n in 1...5 {
            let refused = try ledger.changePassword(email, from: "wrong current \(n)", to: new)
            #expect(refused.status == 1 && refused.stdout == loginRefusal.stdout && refused.stderr == loginRefusal.stderr, "\(refused)")
        }
        let unknown = try ledger.changePassword(uniqueEmail("nobody"), from: old, to: new)
        #expect(unknown.status == 1 && unknown.stdout == loginRefusal.stdout, "the same refusal for an unknown email: \(unknown)")
        #expect(signInReasons(in: try ledger.store.events(), email: email) == Array(repeating: "wrong-password", count: 5))

        let locked = try ledger.login(email, old)
        #expect(locked.status == 1 && locked.stdout == loginRefusal.stdout, "locked out: \(locked)")
        let lockedChange = try ledger.changePassword(email, from: old, to: new)
        #expect(lockedChange.status == 1 && lockedChange.stdout == loginRefusal.stdout, "\(lockedChange)")
        #expect(signInReasons(in: try ledger.store.events(), email: email) == Array(repeating: "wrong-password", count: 5) + ["locked", "locked"])
        #expect(!(try ledger.store.log()).contains(#""type":"PasswordChanged""#))
        try expectNoCanary(ledger, [old, new, "wrong current 1"])
    }

    @Test func aWrongCurrentPasswordIsACountedRefusalOnBothStores() throws {
        try withLedgerDir { dir in try Self.wrongCurrentPassword(Self.file(dir)) }
        try withPostgresLedger { pg in try Self.wrongCurrentPassword(Self.postgres(pg)) }
    }

    // MARK: - A planted hash

    /// The value of `"name":"…"` in `line`.
    private static func field(_ name: String, of line: String) throws -> String {
        let start = try #require(line.range(of: "\"\(name)\":\"")).upperBound
        return String(line[start...].prefix { $0 != "\"" })
    }

    /// A victim who changed their password and an attacker who knows their own: the attacker's hash,
    /// from their own `AccountCreated`.
    private static func victimAndAttacker(_ ledger: Recorded) throws -> (victim: String, attackerPassword: String, attackerHash: String) {
        let (old, new) = passwords()
        let (victim, _) = try change(ledger, old: old, new: new)
        let attacker = uniqueEmail("attacker"), attackerPassword = "attacker's own password"
        #expect(try ledger.run(LedgerDir.registerArguments(email: attacker, username: "Attacker"), attackerPassword + "\n").status == 0)
        let created = try #require(try ledger.store.events().first {
            $0["type"] as? String == "AccountCreated" && ($0["data"] as? [String: Any])?["email"] as? String == attacker
        })
        return (victim, attackerPassword, try #require((created["data"] as? [String: Any])?["passwordHash"] as? String))
    }

    /// The attacker's hash put in the victim's PasswordChanged line (sealed with the victim's key, as
    /// an attacker who can read the key store would), its own hash recomputed: login with the
    /// attacker's password is refused as damage (the next line does not link); with the next line
    /// re-chained too, it is refused because the index recorded the line's old hash.
    @Test(arguments: [false, true])
    func aHashPlantedOnThePasswordChangedLineIsRefused(rechainingTheNextLine: Bool) throws {
        try withLedgerDir { dir in
            let ledger = Self.file(dir)
            let (victim, attackerPassword, attackerHash) = try Self.victimAndAttacker(ledger)
            let lines = splitLines(try dir.logBytes()).map { String(decoding: $0, as: UTF8.self) }
            let at = try #require(lines.firstIndex { $0.contains(#""type":"PasswordChanged""#) })
            let oldHash = try Self.field("hash", of: lines[at])
            let stored = try LogRewriting.envelopes(try dir.logBytes())[at]
            let planted = try FolderKeys(dir.path).edited(stored) { $0["passwordHash"] = .string(attackerHash) }
            try editLine(dir.logPath, line: at) { _ in LogRewriting.body(planted) }
            if rechainingTheNextLine {
                let newHash = try Self.field("hash", of: String(decoding: splitLines(try dir.logBytes())[at], as: UTF8.self))
                try editLine(dir.logPath, line: at + 1) { $0.replacingOccurrences(of: oldHash, with: newHash) }
            }
            let before = try dir.logBytes()
            let login = try ledger.login(victim, attackerPassword)
            #expect(login.status == 1 && !login.stdout.contains("signed-in"), "\(login)")
            #expect(login.stderr.contains(rechainingTheNextLine ? "not the line the index verified" : "damaged at line \(at + 2): broken-chain"),
                    "\(login)")
            #expect(try dir.logBytes() == before, "nothing appended: no session, no refusal")
            #expect(try ledger.run(["verify"]).status == 1)
        }
    }

    @Test func aHashPlantedOnThePasswordChangedRowIsRefusedOnPostgres() throws {
        try withPostgresLedger { pg in
            let ledger = Self.postgres(pg)
            let (victim, attackerPassword, attackerHash) = try Self.victimAndAttacker(ledger)
            // Sealed with the victim's key, read from `ledger_keys` (as on the file store from the key store).
            let stored = try #require(try postgresEnvelopes(pg.url, where: "type = 'PasswordChanged'").first)
            try rewritePostgresRow(pg.url, with: try pg.keys.edited(stored) { $0["passwordHash"] = .string(attackerHash) })
            let seq = stored.seq
            let before = try pg.export().stdout
            let login = try ledger.login(victim, attackerPassword)
            #expect(login.status == 1 && !login.stdout.contains("signed-in"), "\(login)")
            #expect(login.stderr.contains("damaged") && login.stderr.contains("line \(seq + 1) does not link"), "\(login)")
            #expect(try pg.export().stdout == before, "nothing appended")
        }
    }

    // MARK: - The index's pointer

    /// An index whose account slot points back at the `AccountCreated` line (with that line's hash,
    /// as an editor of the file can write it) disagrees with the log: `verify` names the index.
    @Test func anIndexPointingAtAnOlderPasswordLineIsACacheMismatch() throws {
        try withLedgerDir { dir in
            let (old, new) = Self.passwords()
            _ = try Self.change(Self.file(dir), old: old, new: new)
            let lines = splitLines(try dir.logBytes())
            let created = try #require(lines.firstIndex { String(decoding: $0, as: UTF8.self).contains(#""type":"AccountCreated""#) })
            let offset = Int64(lines[..<created].reduce(0) { $0 + $1.count })
            let hash = try #require(Digest32(hex: try Self.field("hash", of: String(decoding: lines[created], as: UTF8.self))))
            // WritersIndex's layout: a 4096-byte header, then 48-byte slots, the tag first; an account
            // slot (7) holds its password line's offset at +24 and the first 8 bytes of its hash at +32.
            let path = dir.logPath + ".index"
            var bytes = try readBytes(path)
            let slots = stride(from: 4096, to: bytes.count, by: 48).filter { bytes[$0] == 7 }
            let slot = try #require(slots.first)
            #expect(slots.count == 1, "one account")
            withUnsafeBytes(of: offset.littleEndian) { bytes.replaceSubrange((slot + 24)..<(slot + 32), with: $0) }
            withUnsafeBytes(of: hash.a.littleEndian) { bytes.replaceSubrange((slot + 32)..<(slot + 40), with: $0) }
            try writeBytes(bytes, to: path)
            let checked = try dir.run(["verify", "--json"])
            #expect(checked.status == 1, "\(checked)")
            #expect(checked.stdout.contains("cache-mismatch") && checked.stdout.contains(path), "\(checked)")
        }
    }
}
