import Foundation
import Testing

/// An operator names an account as a person types it: an email with spaces around it and capitals,
/// a uid in capitals; and a command that ends no session says nothing about sessions.
@Suite struct AccountNamingCLITests {
    @Test func anEmailTypedWithSpacesAndCapitalsNamesItsAccount() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("named")
            let registered = try dir.run(LedgerDir.registerArguments(email: email, username: "Named"), stdin: "long enough password\n")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let disabled = try dir.run(["account", "disable", "  " + email.uppercased() + " ", "--json"])
            #expect(disabled.status == 0, "\(disabled)")
            #expect(try parseObject(disabled.stdout)["uid"] as? String == uid)
            let enabled = try dir.run(["account", "enable", " " + uid.uppercased()])
            #expect(enabled.status == 0, "\(enabled)")
            #expect(enabled.stdout.contains("enabled") && !enabled.stdout.contains("session"), "enable ends no session: \(enabled)")
        }
    }
}
