import Foundation
import Testing

// MARK: - ErasedFailuresAuditTests

/// Every erased email reads alike, so the wrong passwords of different people, once erased, meet
/// under one email in the fold: no rule is checked against them, and their row locks no one. A log
/// written by ordinary commands has no rule break after its accounts are erased.
@Suite struct ErasedFailuresAuditTests {
    @Test func erasedPeoplesFailuresBreakNoRule() throws {
        try withLedgerDir { dir in
            let password = "correct horse battery"
            for i in 1...7 { #expect(try dir.register(email: "a\(i)@example.com", username: "A\(i)", password: password).status == 0) }
            // One wrong password each for six people (none near the lockout), then the seventh signs in.
            for i in 1...6 { #expect(try dir.login(email: "a\(i)@example.com", password: "wrong password").status == 1) }
            #expect(try dir.login(email: "a7@example.com", password: password).status == 0)
            #expect(try dir.run(["audit"]).status == 0, "no anomaly before the erasures")
            for i in 1...7 { #expect(try dir.run(["account", "delete", "a\(i)@example.com"]).status == 0) }
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "\(audit.stdout.prefix(600))")
            let object = try parseObject(audit.stdout)
            #expect((object["anomalies"] as? [Any])?.isEmpty == true, "\(object["anomalies"] ?? "")")
            let rows = try #require(object["signInFailures"] as? [[String: Any]])
            let erased = rows.filter { $0["erased"] as? Bool == true }
            #expect(!erased.isEmpty && erased.allSatisfy { $0["locked"] as? Bool == false }, "\(rows)")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// Six people's wrong passwords, erased with their accounts and no sign-in after them: their
    /// shared row is not shown as locked.
    @Test func theErasedRowLocksNoOne() throws {
        try withLedgerDir { dir in
            let password = "correct horse battery"
            for i in 1...6 { #expect(try dir.register(email: "b\(i)@example.com", username: "B\(i)", password: password).status == 0) }
            for i in 1...6 { #expect(try dir.login(email: "b\(i)@example.com", password: "wrong password").status == 1) }
            for i in 1...6 { #expect(try dir.run(["account", "delete", "b\(i)@example.com"]).status == 0) }
            let rows = try #require(try parseObject(try dir.run(["audit", "--json"]).stdout)["signInFailures"] as? [[String: Any]])
            let erased = try #require(rows.first { $0["erased"] as? Bool == true }, "\(rows)")
            #expect(erased["failures"] as? Int == 6)
            #expect(erased["locked"] as? Bool == false, "\(erased)")
        }
    }
}
