import LedgerDomain
import LedgerKit
import Testing

// Pure projection tests: given events (real envelopes from the in-memory store), then views.
// `ViewScenario.given` checks `invariantViolations()` after every event.

// MARK: - Users

@Suite struct UserViewTests {
    @Test func userGoesFromPendingToActive() throws {
        let s = ViewScenario(), r = RegistrationScript(1)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        var row = try #require(s.views.users.row(uid: r.uid))
        #expect(row.status == .pending)
        #expect(row.userName == nil && row.createdAt == nil)
        #expect(row.registration == r.registration)
        #expect(s.views.users.live(email: r.email)?.uid == r.uid)

        try s.given(r.profileWritten(image: false), in: r.stream)
        row = try #require(s.views.users.row(uid: r.uid))
        #expect(row.status == .active)
        #expect(row.userName == "Person")
        #expect(row.profileImageName == nil)
        #expect(row.createdAt == Timestamp(rfc3339: "2026-11-29T09:00:05.000Z"))
        #expect(s.views.users.rows.map(\.uid) == [r.uid])
    }

    @Test func compensationDeletesTheUserAndFreesTheEmail() throws {
        let s = ViewScenario(), r = RegistrationScript(2)
        try s.given(r.accountCreated(), in: r.stream)
        try s.given(r.imageStored, in: r.stream)
        try s.given(r.failed(.profile), in: r.stream)
        #expect(s.views.users.row(uid: r.uid)?.status == .pending)
        try s.given(r.imageDeleted, in: r.stream)
        try s.given(r.accountDeleted, in: r.stream)
        #expect(s.views.users.row(uid: r.uid)?.status == .deleted)
        #expect(s.views.users.live(email: r.email) == nil)

        // The same email registers again: a second, live user; the deleted one stays in the view.
        let again = RegistrationScript(3, email: r.email)
        try s.given(again.accountCreated(withImage: false), in: again.stream)
        try s.given(again.profileWritten(image: false), in: again.stream)
        #expect(s.views.users.live(email: r.email)?.uid == again.uid)
        #expect(s.views.users.rows.map(\.status) == [.deleted, .active])
    }

    @Test func usersAsOfEachEventFollowTheLifecycle() throws {
        let s = ViewScenario(), r = RegistrationScript(4)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        #expect(s.views(asOf: 0).users.rows.isEmpty)
        #expect(s.views(asOf: 1).users.row(uid: r.uid)?.status == .pending)
        #expect(s.views(asOf: 2).users.row(uid: r.uid)?.status == .active)
        #expect(s.views(asOf: 2) == s.views)
    }

    @Test func invariantCheckCatchesABrokenView() throws {
        // A stored image whose owner never existed: the check must report it (so it is not vacuous).
        let s = ViewScenario(), r = RegistrationScript(5)
        var views = LedgerViews()
        let event = try #require(try s.store.append([r.imageStored], to: r.stream, expected: .any).first)
        views.apply(event)
        #expect(views.invariantViolations().contains { $0.contains("has no owner") })
    }
}

// MARK: - Sessions

@Suite struct SessionViewTests {
    @Test func sessionIsActiveThenEnded() throws {
        let s = ViewScenario(), r = RegistrationScript(10), session = Fixtures.uuid(8010)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        let started = try s.given(r.sessionStarted(session), in: StreamCategory.session.stream(session))
        var row = try #require(s.views.sessions.row(sessionId: session))
        #expect(row.startedAt == started.at)
        #expect(row.endedAt == nil)
        #expect(row.status(at: started.at) == .active)

        let ended = try s.given(r.sessionEnded(session), in: StreamCategory.session.stream(session))
        row = try #require(s.views.sessions.row(sessionId: session))
        #expect(row.endedAt == ended.at)
        #expect(row.status(at: ended.at) == .ended)
        // Ended wins over expired.
        #expect(row.status(at: Timestamp(rfc3339: "2030-01-01T00:00:00.000Z")!) == .ended)
    }

    @Test func sessionExpiresAtItsExpiryTime() throws {
        let s = ViewScenario(), r = RegistrationScript(11), session = Fixtures.uuid(8011)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        try s.given(r.sessionStarted(session, expiresAt: "2026-11-29T10:00:00.000Z"), in: StreamCategory.session.stream(session))
        let row = try #require(s.views.sessions.row(sessionId: session))
        #expect(row.status(at: Timestamp(rfc3339: "2026-11-29T09:59:59.999Z")!) == .active)
        #expect(row.status(at: Timestamp(rfc3339: "2026-11-29T10:00:00.000Z")!) == .expired)
        #expect(row.status(at: Timestamp(rfc3339: "2026-11-30T00:00:00.000Z")!) == .expired)
    }

    @Test func deletingTheAccountEndsItsOpenSessions() throws {
        let s = ViewScenario(), r = RegistrationScript(12), other = RegistrationScript(13)
        let open = Fixtures.uuid(8012), closed = Fixtures.uuid(8013), foreign = Fixtures.uuid(8014)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(other.accountCreated(withImage: false), in: other.stream)
        try s.given(r.sessionStarted(open), in: StreamCategory.session.stream(open))
        try s.given(r.sessionStarted(closed), in: StreamCategory.session.stream(closed))
        let logout = try s.given(r.sessionEnded(closed), in: StreamCategory.session.stream(closed))
        try s.given(other.sessionStarted(foreign), in: StreamCategory.session.stream(foreign))
        try s.given(r.failed(.profile), in: r.stream)
        let deleted = try s.given(r.accountDeleted, in: r.stream)
        #expect(s.views.sessions.row(sessionId: open)?.endedAt == deleted.at)
        #expect(s.views.sessions.row(sessionId: closed)?.endedAt == logout.at)
        #expect(s.views.sessions.row(sessionId: foreign)?.endedAt == nil)
        #expect(s.views.sessions.rows.map(\.sessionId) == [open, closed, foreign])
    }
}

// MARK: - Images

@Suite struct ImageViewTests {
    @Test func imageIsStoredThenDeleted() throws {
        let s = ViewScenario(), r = RegistrationScript(20)
        try s.given(r.accountCreated(), in: r.stream)
        let stored = try s.given(r.imageStored, in: r.stream)
        var row = try #require(s.views.images.row(imageName: r.imageName))
        #expect(row.imageName == r.imageName)
        #expect(row.uid == r.uid)
        #expect(row.contentType == .png)
        #expect(row.bytes == 82)
        #expect(row.sha256 == Fixtures.hex64(3))
        #expect(row.storedAt == stored.at)
        #expect(row.status == .stored)
        try s.given(r.failed(.profile), in: r.stream)
        try s.given(r.imageDeleted, in: r.stream)
        row = try #require(s.views.images.row(imageName: r.imageName))
        #expect(row.status == .deleted)
        #expect(row.storedAt == stored.at)
        try s.given(r.accountDeleted, in: r.stream)
        #expect(s.views.images.rows.map(\.status) == [.deleted])
    }

    @Test func completedRegistrationKeepsItsImageStored() throws {
        let s = ViewScenario(), r = RegistrationScript(21)
        try s.given(r.accountCreated(), in: r.stream)
        try s.given(r.imageStored, in: r.stream)
        try s.given(r.profileWritten(), in: r.stream)
        #expect(s.views.images.rows.map(\.status) == [.stored])
        #expect(s.views.users.row(uid: r.uid)?.profileImageName == r.imageName)
    }
}

// MARK: - Registrations

@Suite struct RegistrationViewTests {
    @Test func completedWithAndWithoutImage() throws {
        let s = ViewScenario(), a = RegistrationScript(30), b = RegistrationScript(31)
        try s.given(a.accountCreated(), in: a.stream)
        #expect(s.views.registrations.state(of: a.registration)?.outcome == .inProgress)
        try s.given(a.imageStored, in: a.stream)
        #expect(s.views.registrations.state(of: a.registration)?.outcome == .inProgress)
        try s.given(a.profileWritten(), in: a.stream)
        try s.given(b.accountCreated(withImage: false), in: b.stream)
        try s.given(b.profileWritten(image: false), in: b.stream)
        let rows = s.views.registrations.rows
        #expect(rows.map(\.registration) == [a.registration, b.registration])
        #expect(rows.map(\.outcome) == [.completed, .completed])
        #expect(rows.allSatisfy { $0.compensations.isEmpty && $0.failure == nil })
        #expect(rows[0].email == a.email)
    }

    @Test func rejectedAtValidationAndForATakenEmail() throws {
        let s = ViewScenario(), taken = RegistrationScript(32), dup = RegistrationScript(33, email: taken.email)
        let invalid = RegistrationScript(34, email: "not-an-email")
        try s.given(.failed(Failed(step: .validation, reason: "invalid-email", message: "bad", email: "not-an-email")), in: invalid.stream)
        try s.given(taken.accountCreated(withImage: false), in: taken.stream)
        try s.given(taken.profileWritten(image: false), in: taken.stream)
        try s.given(dup.failed(.account, reason: "email-already-in-use", withUID: false), in: dup.stream)
        let first = try #require(s.views.registrations.state(of: invalid.registration))
        #expect(first.outcome == .rejected)
        #expect(first.email == "not-an-email")
        #expect(first.failure?.step == .validation)
        let second = try #require(s.views.registrations.state(of: dup.registration))
        #expect(second.outcome == .rejected)
        #expect(second.failure?.reason == "email-already-in-use")
        #expect(second.email == taken.email)
    }

    @Test func compensationPendingUntilEveryStepIsUndoneInReverseOrder() throws {
        let s = ViewScenario(), r = RegistrationScript(35)
        try s.given(r.accountCreated(), in: r.stream)
        try s.given(r.imageStored, in: r.stream)
        try s.given(r.failed(.profile), in: r.stream)
        var state = try #require(s.views.registrations.state(of: r.registration))
        #expect(state.outcome == .compensationPending)
        #expect(state.compensations == [])
        try s.given(r.imageDeleted, in: r.stream)
        state = try #require(s.views.registrations.state(of: r.registration))
        #expect(state.outcome == .compensationPending)
        #expect(state.compensations == [.imageDeleted])
        try s.given(r.accountDeleted, in: r.stream)
        state = try #require(s.views.registrations.state(of: r.registration))
        #expect(state.outcome == .compensated)
        #expect(state.compensations == [.imageDeleted, .accountDeleted])
        #expect(state.failure?.step == .profile)
        #expect(state.failure?.reason == "io-error")
        #expect(state.version == 5)
        #expect(state.startedAt == s.recorded.first?.at)
        #expect(state.lastAt == s.recorded.last?.at)
    }

    @Test func imageStepFailureCompensatesOnlyTheAccount() throws {
        let s = ViewScenario(), r = RegistrationScript(36)
        try s.given(r.accountCreated(), in: r.stream)
        try s.given(r.failed(.image), in: r.stream)
        #expect(s.views.registrations.state(of: r.registration)?.outcome == .compensationPending)
        try s.given(r.accountDeleted, in: r.stream)
        #expect(s.views.registrations.state(of: r.registration)?.outcome == .compensated)
        #expect(s.views.registrations.state(of: r.registration)?.compensations == [.accountDeleted])
    }

    @Test func otherStreamsAreNotRegistrations() throws {
        let s = ViewScenario(), r = RegistrationScript(37), session = Fixtures.uuid(8037)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        try s.given(r.sessionStarted(session), in: StreamCategory.session.stream(session))
        try s.given(.signInFailed(SignInFailed(email: r.email, reason: .wrongPassword)), in: StreamCategory.signin.stream(Fixtures.uuid(9037)))
        #expect(s.views.registrations.rows.count == 1)
        #expect(s.views.events == 4)
        #expect(s.views.head.seq == 4)
        #expect(s.views.head.hash == s.recorded.last?.envelope.hash)
    }
}

// MARK: - Sign-ins

@Suite struct SignInViewTests {
    /// A refused sign-in for `email` recorded at 10:MM:SS on 2026-11-29.
    private func refused(_ s: ViewScenario, _ email: String, _ n: Int, at clock: String, reason: SignInFailure = .wrongPassword) throws {
        s.at("2026-11-29T10:\(clock).000Z")
        try s.given(.signInFailed(SignInFailed(email: email, reason: reason)), in: StreamCategory.signin.stream(Fixtures.uuid(9100 + n)))
    }

    private func time(_ clock: String) -> Timestamp { Timestamp(rfc3339: "2026-11-29T10:\(clock)Z")! }

    @Test func fiveWrongPasswordsLockForFifteenMinutesAfterTheLast() throws {
        let s = ViewScenario(step: 0), r = RegistrationScript(40)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        for n in 0..<4 { try refused(s, r.email, n, at: "0\(n):00") }
        #expect(s.views.signIns.lockedUntil(r.email, at: time("04:00.000")) == nil)
        try refused(s, r.email, 4, at: "04:00")
        let until = time("19:00.000")
        #expect(s.views.signIns.lockedUntil(r.email, at: time("04:00.000")) == until)
        #expect(s.views.signIns.lockedUntil(r.email, at: time("18:59.999")) == until)
        #expect(s.views.signIns.lockedUntil(r.email, at: until) == nil)
        #expect(s.views.signIns.row(email: r.email)?.failures == 5)
        #expect(s.views.signIns.lockedUntil("someone-else@example.com", at: time("05:00.000")) == nil)
    }

    @Test func onlyTheLastFiveFailuresWithinTheWindowLock() throws {
        let s = ViewScenario(step: 0), email = "spread@example.com"
        for (n, minute) in ["00:00", "04:00", "08:00", "12:00", "16:00"].enumerated() { try refused(s, email, n, at: minute) }
        #expect(s.views.signIns.lockedUntil(email, at: time("16:00.000")) == nil)
        try refused(s, email, 5, at: "18:00")  // the last five span 10:04 … 10:18, within 15 minutes
        #expect(s.views.signIns.lockedUntil(email, at: time("18:00.000")) == time("33:00.000"))
        #expect(s.views.signIns.row(email: email)?.recentFailures.count == 5)
        #expect(s.views.signIns.row(email: email)?.failures == 6)
    }

    @Test func onlyWrongPasswordsCountAndASessionResets() throws {
        let s = ViewScenario(step: 0), r = RegistrationScript(41), session = Fixtures.uuid(8041)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        for n in 0..<4 { try refused(s, r.email, n, at: "00:0\(n)") }
        try refused(s, r.email, 4, at: "00:04", reason: .unknownEmail)
        try refused(s, r.email, 5, at: "00:05", reason: .locked)
        #expect(s.views.signIns.lockedUntil(r.email, at: time("00:06.000")) == nil)
        #expect(s.views.signIns.row(email: r.email)?.failures == 6)
        s.at("2026-11-29T10:00:07.000Z")
        try s.given(r.sessionStarted(session), in: StreamCategory.session.stream(session))
        #expect(s.views.signIns.row(email: r.email)?.recentFailures == [])
        try refused(s, r.email, 6, at: "00:08")
        #expect(s.views.signIns.lockedUntil(r.email, at: time("00:09.000")) == nil)
        #expect(s.views.signIns.rows.map(\.email) == [r.email])
    }
}
