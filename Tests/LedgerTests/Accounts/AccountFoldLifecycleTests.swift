import LedgerDomain
import Testing

/// What the account fold makes of the lifecycle events: an email change moves the account's email
/// and frees the old one; a reset ends the lockout and a change does not; the views agree with the
/// fold after every event.
@Suite struct AccountFoldLifecycleTests {
    private let ann = UUIDBits(uuid: Fixtures.uuid(61))!, bob = UUIDBits(uuid: Fixtures.uuid(62))!

    /// The views after `facts` (one event per second), checking their invariants after each.
    private func fold(_ facts: [ViewEvent.Fact]) -> LedgerViews {
        var views = LedgerViews()
        for (n, fact) in facts.enumerated() {
            let category: StreamCategory = if case .accountCreated = fact { .registration } else if case .profileWritten = fact { .registration }
                else if case .signInFailed = fact { .signin } else { .account }
            views.apply(ViewEvent(seq: n + 1, at: Timestamp(millis: Int64(n + 1) * 1_000), category: category, stream: .zero, fact: fact),
                        hash: .zero)
            #expect(views.invariantViolations().isEmpty, "after event \(n + 1): \(views.invariantViolations())")
        }
        return views
    }

    private func signedUp(_ uid: UUIDBits, _ email: String) -> [ViewEvent.Fact] {
        [.accountCreated(uid: uid, email: email, withImage: nil), .profileWritten(uid: uid, userName: "x", profileImage: nil, createdAt: Timestamp(millis: 0))]
    }

    @Test func anEmailChangeMovesTheEmailAndFreesTheOldOne() {
        let views = fold(signedUp(ann, "ann@example.com") + [.emailChanged(uid: ann, email: "ann@example.org", previousEmail: "ann@example.com")])
        #expect(views.users.live(email: "ann@example.org")?.uid == ann.uuidString)
        #expect(views.users.live(email: "ann@example.com") == nil)
        #expect(views.users.row(uid: ann.uuidString)?.email == "ann@example.org")
        #expect(views.ruleBreaks.isEmpty)
        // The old email may be taken again, by a new account, with no rule broken.
        let again = fold(signedUp(ann, "ann@example.com") + [.emailChanged(uid: ann, email: "ann@example.org", previousEmail: "ann@example.com")]
                         + signedUp(bob, "ann@example.com"))
        #expect(again.users.live(email: "ann@example.com")?.uid == bob.uuidString)
        #expect(again.users.live(email: "ann@example.org")?.uid == ann.uuidString)
        #expect(again.ruleBreaks.isEmpty)
    }

    @Test func changingToAnEmailALiveAccountHoldsBreaksTheRule() {
        let views = fold(signedUp(ann, "ann@example.com") + signedUp(bob, "bob@example.com")
                         + [.emailChanged(uid: bob, email: "ann@example.com", previousEmail: "bob@example.com")])
        #expect(views.ruleBreaks.map(\.kind) == [.duplicateLiveAccount])
    }

    @Test func aResetEndsTheLockoutAndAChangeDoesNot() {
        let failures = [ViewEvent.Fact](repeating: .signInFailed(email: "ann@example.com", reason: .wrongPassword), count: 5)
        let changed = fold(signedUp(ann, "ann@example.com") + failures + [.passwordChanged(uid: ann, reason: .change)])
        #expect(changed.recentFailures(of: ViewEmail("ann@example.com")).count == 5)
        let reset = fold(signedUp(ann, "ann@example.com") + failures + [.passwordChanged(uid: ann, reason: .reset)])
        #expect(reset.recentFailures(of: ViewEmail("ann@example.com")).isEmpty)
    }

    @Test func aDeletedAccountKeepsNoEmailToMove() {
        let views = fold(signedUp(ann, "ann@example.com") + [.accountDeleted(uid: ann, reason: .operator),
                                                             .emailChanged(uid: ann, email: "ann@example.org", previousEmail: "ann@example.com")])
        #expect(views.users.live(email: "ann@example.org") == nil)
        #expect(views.users.row(uid: ann.uuidString)?.status == .deleted)
    }
}
