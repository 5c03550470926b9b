import LedgerDomain
import LedgerKit
import Testing

// The library's reads, on both stores: every view, from the whole log or as it stood at an event.

@Suite struct LedgerReadsTests {
    private let password = "correct horse battery"

    @Test(arguments: LibraryStore.allCases)
    func theViewsAreTheLogsAtAnySeq(_ store: LibraryStore) async throws {
        let place = try store.place("library-views")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        let ada = try await ledger.register(email: "ada@example.com", password: password, userName: "Ada")
        let afterAda = try await ledger.head().seq
        let bob = try await ledger.register(email: "bob@example.com", password: password, userName: "Bob")
        let session = try await ledger.signIn(email: "bob@example.com", password: password)
        try await ledger.signOut(sessionId: session.sessionId)
        _ = try await ledger.disable(account: ada.uid, reason: "test")

        let now = try await ledger.views()
        #expect(Dictionary(uniqueKeysWithValues: now.users.rows.map { ($0.uid, $0.status.rawValue) }) == [ada.uid: "disabled", bob.uid: "active"])
        let sessions = now.sessions.rows
        #expect(sessions.count == 3, "each registration's first session and Bob's sign-in")
        #expect(sessions.first { $0.sessionId == session.sessionId }?.endedAt != nil)
        #expect(now.registrations.rows.count == 2)

        let then = try await ledger.views([.users, .sessions], asOf: .seq(afterAda))
        #expect(then.users.rows.map(\.uid) == [ada.uid] && then.users.rows.first?.status.rawValue == "active")
        #expect(then.sessions.rows.map(\.uid) == [ada.uid])
        #expect(then.registrations.rows.isEmpty, "a view not asked for is not folded")
        #expect(try await ledger.users().map(\.uid).sorted() == [ada.uid, bob.uid].sorted(), "users() is the users view's rows")
        await ledger.close()
    }
}
