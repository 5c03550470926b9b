@testable import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - AccountTableEmailBytesTests

/// The folded account table (a file store's writers without their index, `migrate`, the erasure
/// scan, `verify --store`'s check) keys emails by their bytes, as the writers' index and the views
/// do: `a`b@…` (ASCII, an address ledger accepts) and `a\u{1FEF}b@…` (Greek varia, which Swift's
/// `String` compares equal to the backtick) are two emails, and the second one's deleted account
/// does not hide the first one's live account.
struct AccountTableEmailBytesTests {
    @Test func twinsThatCompareEqualAsTextAreTwoEmails() {
        let ascii = "a`b@example.com", varia = "a\u{1FEF}b@example.com"
        #expect(ascii == varia && !ascii.utf8.elementsEqual(varia.utf8), "the pair compares equal as String")
        let (a, b) = (UUIDBits(high: 1, low: 1), UUIDBits(high: 1, low: 2))
        var table = AccountTable(), views = LedgerViews()
        let events: [ViewEvent.Fact] = [
            .accountCreated(uid: a, email: ascii, withImage: false), .profileWritten(uid: a, userName: "A", profileImage: nil, createdAt: Timestamp(millis: 0)),
            .accountCreated(uid: b, email: varia, withImage: false), .accountDeleted(uid: b, reason: .operator, keepsPersonalData: true),
            .signInFailed(email: varia, reason: .wrongPassword),
        ]
        for (n, fact) in events.enumerated() {
            let event = ViewEvent(seq: n + 1, at: Timestamp(millis: Int64(n)), category: .registration, stream: UUIDBits(high: 9, low: UInt64(n)), fact: fact)
            AccountFold.evolve(&table, event)
            views.apply(event, hash: .zero)
        }
        #expect(AccountFold.liveAccount(of: table.emailKey(ascii), in: table) == a)
        #expect(AccountFold.liveAccount(of: table.emailKey(varia), in: table) == nil)
        #expect(table.recentFailures(of: table.emailKey(ascii)).isEmpty && table.recentFailures(of: table.emailKey(varia)).count == 1)
        // The views, which key emails by bytes, agree.
        #expect(AccountFold.liveAccount(of: views.emailKey(ascii), in: views) == a)
        #expect(views.users.live(email: ascii)?.uid == a.uuidString)
    }
}
