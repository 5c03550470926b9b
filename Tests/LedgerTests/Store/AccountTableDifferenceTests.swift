import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - AccountTableDifferenceTests

/// What `verify --store` says when PostgreSQL's account tables differ from the log's fold: the
/// account and what differs, never an email spelled out.
@Suite struct AccountTableDifferenceTests {
    private static let uid = UUIDBits(uuid: "001d0ba0-2c1b-4b2e-be19-a5dec612a7ce")!

    private static func table(status: AccountStatus = .active, email: String = "ann@example.com", passwordSeq: Int = 7) -> AccountTable {
        var table = AccountTable()
        table.accounts[uid] = AccountTable.Account(status: status, email: EmailBytes(email), passwordSeq: passwordSeq)
        return table
    }

    @Test func anEmailAloneIsNamedAsTheEmail() {
        let message = Self.table(email: "mallory@example.com").difference(from: Self.table())
        #expect(message == "the email of account 001d0ba0-2c1b-4b2e-be19-a5dec612a7ce differs from the log's")
        #expect(message?.contains("example.com") == false)
    }

    @Test func aStatusOrPasswordLineIsSpelledOnBothSides() {
        #expect(Self.table(status: .deleted).difference(from: Self.table())
                == "account 001d0ba0-2c1b-4b2e-be19-a5dec612a7ce is deleted (password set at seq 7) in the tables, active (password set at seq 7) in the log")
        #expect(Self.table(passwordSeq: 3).difference(from: Self.table())?.contains("seq 3) in the tables, active (password set at seq 7)") == true)
        #expect(Self.table().difference(from: Self.table()) == nil)
    }
}
