import LedgerDomain
import Testing

/// `AccountFold.decide`: every cell of the state table (Docs/CLI.md), the fold of the new events,
/// the sign-in decision, and which events `AccountHistory` counts as an account's.
@Suite struct AccountDecisionTests {
    private let uid = Fixtures.uuid(41)
    private let sessions = [Fixtures.uuid(51), Fixtures.uuid(52)]

    private func decide(_ action: AccountAction, _ status: AccountStatus) -> Result<[LedgerEvent], AccountRefusal> {
        AccountFold.decide(action, AccountStanding(uid: uid, status: status, activeSessions: sessions))
    }

    private func refusal(_ result: Result<[LedgerEvent], AccountRefusal>) -> AccountRefusal.Code? {
        if case .failure(let refusal) = result { return refusal.code }
        return nil
    }

    private func ended(_ reason: String) -> [LedgerEvent] {
        sessions.map { .sessionEnded(SessionEnded(sessionId: $0, uid: uid, reason: reason)) }
    }

    @Test func pendingRefusesEverything() {
        for action in [AccountAction.disable(reason: ""), .enable, .signOutEverywhere] {
            #expect(refusal(decide(action, .pending)) == .registrationIncomplete, "\(action)")
        }
    }

    @Test func deletedRefusesEverything() {
        for action in [AccountAction.disable(reason: "x"), .enable, .signOutEverywhere] {
            #expect(refusal(decide(action, .deleted)) == .accountDeleted, "\(action)")
        }
    }

    @Test func activeCells() throws {
        let disabled = try decide(.disable(reason: "abuse"), .active).get()
        #expect(disabled == [.accountDisabled(AccountDisabled(uid: uid, reason: "abuse"))] + ended("account-disabled"))
        #expect(refusal(decide(.enable, .active)) == .notDisabled)
        #expect(try decide(.signOutEverywhere, .active).get() == ended("revoked"))
    }

    @Test func disabledCells() throws {
        #expect(refusal(decide(.disable(reason: ""), .disabled)) == .alreadyDisabled)
        #expect(try decide(.enable, .disabled).get() == [.accountEnabled(AccountEnabled(uid: uid))])
        #expect(try decide(.signOutEverywhere, .disabled).get() == ended("revoked"))
    }

    @Test func signingOutWithoutSessionsDecidesNothing() throws {
        let none = AccountStanding(uid: uid, status: .active, activeSessions: [])
        #expect(try AccountFold.decide(.signOutEverywhere, none).get().isEmpty)
        #expect(try AccountFold.decide(.disable(reason: ""), none).get() == [.accountDisabled(AccountDisabled(uid: uid))])
    }

    @Test func refusalsAreOneLine() {
        for status in AccountStatus.allCases {
            for action in [AccountAction.disable(reason: ""), .enable, .signOutEverywhere] {
                if case .failure(let refusal) = decide(action, status) {
                    #expect(!refusal.message.contains("\n") && refusal.message.contains(uid))
                }
            }
        }
    }

    // MARK: - The fold

    private func event(_ seq: Int, _ fact: ViewEvent.Fact, _ category: StreamCategory = .account, stream: UUIDBits? = nil) -> ViewEvent {
        ViewEvent(seq: seq, at: Timestamp(millis: Int64(seq) * 1000), category: category,
                  stream: stream ?? UUIDBits(uuid: uid)!, fact: fact)
    }

    @Test func disableAndEnableFoldOnlyFromTheirStates() {
        let bits = UUIDBits(uuid: uid)!
        var users = UserView()
        users.apply(event(1, .accountCreated(uid: bits, email: "d@example.com", withImage: nil), .registration))
        users.apply(event(2, .accountDisabled(uid: bits)))
        #expect(users.row(uid: uid)?.status == .pending, "a pending account is not disabled")
        users.apply(event(3, .accountEnabled(uid: bits)))
        #expect(users.row(uid: uid)?.status == .pending, "nor enabled")
        users.apply(event(4, .profileWritten(uid: bits, userName: "D", profileImage: nil, createdAt: Timestamp(millis: 0)), .registration))
        users.apply(event(5, .accountDisabled(uid: bits)))
        #expect(users.row(uid: uid)?.status == .disabled)
        #expect(users.live(email: "d@example.com")?.uid == uid, "a disabled account keeps its email")
        #expect(AccountFold.liveStatus(of: users.emailKey("d@example.com"), in: users) == .disabled)
        #expect(AccountFold.signInAccount(of: users.emailKey("d@example.com"), in: users) == nil)
        users.apply(event(6, .accountEnabled(uid: bits)))
        #expect(users.row(uid: uid)?.status == .active)
        #expect(AccountFold.keys(of: event(7, .accountDisabled(uid: bits)).fact) == (nil, bits, false))
        #expect(AccountFold.keys(of: event(7, .accountEnabled(uid: bits)).fact) == (nil, bits, false))
    }

    @Test func signInDecision() {
        let policy = SignInPolicy(), now = Timestamp(millis: 10_000_000)
        let locking = (0..<5).map { Timestamp(millis: 9_999_000 + Int64($0)) }
        #expect(AccountFold.signInDecision(liveStatus: nil, recentFailures: [], policy: policy, at: now) == .unknownEmail)
        #expect(AccountFold.signInDecision(liveStatus: .pending, recentFailures: [], policy: policy, at: now) == .unknownEmail)
        #expect(AccountFold.signInDecision(liveStatus: .active, recentFailures: [], policy: policy, at: now) == nil)
        #expect(AccountFold.signInDecision(liveStatus: .active, recentFailures: locking, policy: policy, at: now) == .locked)
        #expect(AccountFold.signInDecision(liveStatus: .disabled, recentFailures: [], policy: policy, at: now) == .disabled)
        #expect(AccountFold.signInDecision(liveStatus: .disabled, recentFailures: locking, policy: policy, at: now) == .disabled)
    }

    @Test func disabledRefusalsDoNotCountTowardsTheLockout() {
        var views = LedgerViews()
        for n in 1...6 {
            views.apply(event(n, .signInFailed(email: "d@example.com", reason: .disabled), .signin, stream: UUIDBits(uuid: Fixtures.uuid(900 + n))!),
                        hash: .zero)
        }
        #expect(views.recentFailures(of: views.emailKey("d@example.com")).isEmpty)
        views.apply(event(7, .signInFailed(email: "d@example.com", reason: .wrongPassword), .signin, stream: UUIDBits(uuid: Fixtures.uuid(907))!),
                    hash: .zero)
        #expect(views.recentFailures(of: views.emailKey("d@example.com")).count == 1, "a wrong password does count")
    }

    // MARK: - History

    @Test func historyFollowsTheAccountsStreams() {
        let bits = UUIDBits(uuid: uid)!, other = UUIDBits(uuid: Fixtures.uuid(42))!
        let registration = UUIDBits(uuid: Fixtures.uuid(61))!, session = UUIDBits(uuid: sessions[0])!
        var history = AccountHistory(uid: bits)
        func includes(_ event: ViewEvent) -> Bool { history.includes(event) }
        let early = event(1, .signInFailed(email: "h@example.com", reason: .unknownEmail), .signin, stream: UUIDBits(uuid: Fixtures.uuid(71))!)
        #expect(!includes(early), "before the account existed")
        #expect(includes(event(2, .accountCreated(uid: bits, email: "h@example.com", withImage: nil), .registration, stream: registration)))
        #expect(includes(event(3, .profileWritten(uid: bits, userName: "H", profileImage: nil, createdAt: Timestamp(millis: 0)),
                                       .registration, stream: registration)))
        #expect(includes(event(4, .sessionStarted(session: session, uid: bits, expiresAt: Timestamp(millis: 1 << 40)), .session, stream: session)))
        #expect(!includes(event(5, .sessionStarted(session: UUIDBits(uuid: sessions[1])!, uid: other, expiresAt: Timestamp(millis: 1 << 40)),
                                        .session, stream: UUIDBits(uuid: sessions[1])!)))
        #expect(includes(event(6, .signInFailed(email: "h@example.com", reason: .wrongPassword), .signin, stream: UUIDBits(uuid: Fixtures.uuid(72))!)))
        #expect(!includes(event(7, .signInFailed(email: "x@example.com", reason: .wrongPassword), .signin, stream: UUIDBits(uuid: Fixtures.uuid(73))!)))
        #expect(includes(event(8, .accountDisabled(uid: bits))))
        #expect(!includes(event(9, .accountDisabled(uid: other), stream: other)))
        #expect(includes(event(10, .sessionEnded(session: session), .session, stream: session)))
    }
}
