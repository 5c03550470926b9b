import LedgerDomain
import Testing

/// The audit rows of an account's later life (password changes and resets, reset and verification
/// requests, email verification and change, deletions by its owner or an operator), through a
/// checkpoint and in the report; and which events `AccountHistory` gives the account after it moved email.
@Suite struct AccountLifecycleAuditTests {
    private let ann = UUIDBits(uuid: Fixtures.uuid(71))!, bob = UUIDBits(uuid: Fixtures.uuid(72))!

    private func event(_ n: Int, _ category: StreamCategory, _ stream: UUIDBits, _ fact: ViewEvent.Fact) -> ViewEvent {
        ViewEvent(seq: n, at: Timestamp(millis: Int64(n) * 60_000), category: category, stream: stream, fact: fact)
    }

    private var life: [ViewEvent] {
        [event(1, .registration, bob, .accountCreated(uid: ann, email: "ann@example.com", withImage: nil)),
         event(2, .registration, bob, .profileWritten(uid: ann, userName: "Ann", profileImage: nil, createdAt: Timestamp(millis: 0))),
         event(3, .account, ann, .emailVerificationRequested(uid: ann)),
         event(4, .account, ann, .emailVerified(uid: ann, email: "ann@example.com")),
         event(5, .account, ann, .passwordChanged(uid: ann, reason: .change)),
         event(6, .account, ann, .passwordResetRequested(uid: ann)),
         event(7, .account, ann, .passwordChanged(uid: ann, reason: .reset)),
         event(8, .account, ann, .emailChanged(uid: ann, email: "ann@example.org", previousEmail: "ann@example.com")),
         event(9, .signin, bob, .signInFailed(email: "ann@example.org", reason: .wrongPassword)),
         event(10, .signin, bob, .signInFailed(email: "ann@example.com", reason: .unknownEmail)),
         event(11, .account, ann, .accountDeleted(uid: ann, reason: .userRequest)),
         event(12, .registration, ann, .accountDeleted(uid: bob, reason: .compensation))]
    }

    @Test func everyLaterStepIsARowInLogOrder() {
        var views = LedgerViews()
        for e in life { views.apply(e, hash: .zero) }
        let changes = views.accountChanges.changes
        #expect(changes.map(\.change) == [.verificationRequested, .emailVerified, .passwordChanged, .resetRequested, .passwordReset,
                                          .emailChanged, .deleted])
        #expect(changes.map(\.seq) == [3, 4, 5, 6, 7, 8, 11])
        #expect(changes[5].email == "ann@example.com" && changes[5].newEmail == "ann@example.org")
        #expect(changes[6].email == "ann@example.org" && changes[6].reason == "user-request")
        #expect(JSONWriter.string(changes[5].json).hasSuffix(#""email":"ann@example.com","change":"email-changed","newEmail":"ann@example.org"}"#))
        #expect(JSONWriter.string(changes[6].json).hasSuffix(#""change":"deleted","reason":"user-request"}"#))
        #expect(changes[5].detail() == "new email ann@example.org" && changes[2].detail() == "-")
    }

    @Test func theCheckpointAndTheReportCarryThem() throws {
        var views = LedgerViews()
        for e in life { views.apply(e, hash: .zero) }
        let read = try Fixtures.checkpointRoundTrip(views).views
        #expect(read.accountChanges == views.accountChanges)
        let model = ReportModel(views: views, asOf: Timestamp(millis: 13 * 60_000), verifyOK: true, generatedAt: Timestamp(millis: 13 * 60_000))
        let html = HTMLReport.render(model)
        #expect(html.contains("data-change=\"email-changed\"") && html.contains("data-change=\"deleted\""))
        #expect(pageLacks(html, "ann@example.org") && pageLacks(html, "ann@example.com"))
        #expect(pageText(HTMLReport.render(model, options: HTMLReport.Options(showEmails: true))).contains("new email ann@example.org"))
    }

    @Test func theHistoryFollowsTheEmailTheAccountMovedTo() {
        var history = AccountHistory(uid: ann)
        let kept = life.filter { history.includes($0) }.map(\.seq)
        // Its own streams, and the refused sign-in of the email it holds then (9), not of the one it left (10).
        #expect(kept == [1, 2, 3, 4, 5, 6, 7, 8, 9, 11])
    }
}
