import Foundation
import LedgerDomain
import Testing

// Ids a person types (a uid, a session id, a stream name) are accepted in any case and printed
// lowercase, as the log holds them.

@Suite struct TypedIDsCLITests {
    @Test func typedFindsTheLowercaseFormOfIdsOnly() {
        let uid = "711f81a0-b631-47a4-8f7e-2b1c0d9e3a55"
        #expect(Identifiers.typed(uid.uppercased()) == uid)
        #expect(Identifiers.typed("Account-" + uid.uppercased()) == "account-" + uid)
        #expect(Identifiers.typed(uid) == uid)
        #expect(Identifiers.typed("Someone@Example.COM") == "Someone@Example.COM", "not an id: left as typed")
        #expect(Identifiers.typed("711F81A0-B631") == "711F81A0-B631")
    }

    @Test func upperCaseIdsNameTheSameUserSessionAndStream() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("cased")
            let register = try dir.register(email: email)
            try #require(register.status == 0, "\(register)")
            let uid = try #require(try parseObject(register.stdout)["uid"] as? String)
            let upper = uid.uppercased()

            let shown = try dir.run(["user", upper, "--json"])
            #expect(shown.status == 0, "\(shown)")
            #expect(try parseObject(shown.stdout)["uid"] as? String == uid)

            let disable = try dir.run(["account", "disable", upper, "--json"])
            #expect(disable.status == 0, "\(disable)")
            #expect(try parseObject(disable.stdout)["uid"] as? String == uid)
            #expect(try dir.run(["account", "enable", upper]).status == 0)

            let events = try dir.run(["events", "--stream", "ACCOUNT-" + upper, "--json"])
            #expect(events.status == 0, "\(events)")
            #expect(events.stdoutLines.count == 2, "disabled and enabled: \(events)")

            let login = try dir.login(email: email, password: "correct horse 1")
            let session = try #require(try parseObject(login.stdout)["sessionId"] as? String)
            let logout = try dir.run(["logout", "--session", session.uppercased(), "--json"])
            #expect(logout.status == 0, "\(logout)")
            #expect(try parseObject(logout.stdout)["sessionId"] as? String == session)
            let ended = try dir.data(of: "SessionEnded").filter { $0["sessionId"] as? String == session }
            #expect(ended.count == 1)
        }
    }
}
