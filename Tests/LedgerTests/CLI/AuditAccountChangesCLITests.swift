import Foundation
import LedgerKit
import Testing

// `ledger audit` and `ledger report` list an operator's disables, enables and revoked sessions, end to
// end on the file store and on PostgreSQL.

@Suite struct AuditAccountChangesCLITests {
    private static let password = "correct horse audit"

    /// register → login → disable (with a reason) → enable → login → sign-out-everywhere; then
    /// `audit --json` lists the changes and the revoked sessions in log order, with the documented members.
    static func auditLists(_ store: LifecycleStore) throws {
        let email = uniqueEmail("audit")
        let registered = try store.run(LedgerDir.registerArguments(email: email, username: "Audit"), password + "\n")
        try #require(registered.status == 0, "\(registered)")
        let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
        let reason = "<b>spam</b> reported by ops@example.com"
        #expect(try store.run(["account", "disable", email, "--reason", reason], nil).status == 0)
        #expect(try store.run(["account", "enable", uid], nil).status == 0)
        #expect(try store.run(["login", "--email", email, "--password-stdin"], password + "\n").status == 0)
        #expect(try store.run(["account", "sign-out-everywhere", uid], nil).status == 0)

        let events = try AccountLifecycleCLITests.events(store)
        func seqs(_ type: String, _ reason: String? = nil) -> [Int] {
            events.filter { $0["type"] as? String == type && (reason == nil || ($0["data"] as? [String: Any])?["reason"] as? String == reason) }
                .compactMap { $0["seq"] as? Int }
        }
        let audit = try store.run(["audit", "--json"], nil)
        #expect(audit.status == 0, "\(audit)")
        let object = try parseObject(audit.stdout)
        #expect(keys(object) == ["failedRegistrations", "signInFailures", "accountChanges", "sessionsRevoked", "anomalies"])
        let changes = try #require(object["accountChanges"] as? [[String: Any]])
        #expect(changes.map(keys) == [["seq", "at", "uid", "email", "change", "reason"], ["seq", "at", "uid", "email", "change"]])
        #expect(changes.compactMap { $0["seq"] as? Int } == seqs("AccountDisabled") + seqs("AccountEnabled"))
        #expect(changes.compactMap { $0["change"] as? String } == ["disabled", "enabled"])
        #expect(changes.allSatisfy { $0["uid"] as? String == uid && $0["email"] as? String == email })
        #expect(changes.first?["reason"] as? String == reason)
        let atOfDisable = events.first { $0["type"] as? String == "AccountDisabled" }?["at"] as? String
        #expect(changes.first?["at"] as? String == atOfDisable)

        let revoked = try #require(object["sessionsRevoked"] as? [[String: Any]])
        #expect(revoked.allSatisfy { keys($0) == ["seq", "at", "uid", "sessionId", "reason"] && $0["uid"] as? String == uid })
        #expect(revoked.compactMap { $0["seq"] as? Int } == seqs("SessionEnded", "account-disabled") + seqs("SessionEnded", "revoked"))
        #expect(revoked.compactMap { $0["reason"] as? String } == ["account-disabled", "revoked"])
        let ended = events.filter { $0["type"] as? String == "SessionEnded" }.compactMap { ($0["data"] as? [String: Any])?["sessionId"] as? String }
        #expect(revoked.compactMap { $0["sessionId"] as? String } == ended)

        let human = try store.run(["audit"], nil)
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.contains("Account changes") && human.stdout.contains("2 changes"), "\(human)")
        #expect(human.stdout.contains("Sessions revoked") && human.stdout.contains("2 sessions"), "\(human)")
    }

    @Test func auditListsAccountChangesOnTheFileStore() throws {
        try withLedgerDir { dir in
            try Self.auditLists(AccountLifecycleCLITests.fileStore(dir))
            // The report's account section: the email masked, the operator's words escaped.
            let out = dir.path + "/report.html"
            #expect(try dir.run(["report", "--html", out]).status == 0)
            let html = try readText(out)
            #expect(html.contains("data-section=\"account-changes\"") && html.contains("data-section=\"sign-ins\""))
            #expect(html.contains("data-change=\"disabled\"") && html.contains("data-change=\"enabled\""))
            #expect(html.contains("&lt;b&gt;spam&lt;/b&gt; reported by o***@example.com") && !html.contains("<b>spam"))
            #expect(!html.contains("ops@example.com"))
        }
    }

    @Test func auditListsAccountChangesOnPostgres() throws {
        try withPostgresLedger { pg in try Self.auditLists(AccountLifecycleCLITests.postgresStore(pg)) }
    }
}
