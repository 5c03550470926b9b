import LedgerDomain
import LedgerKit
import Testing

// The account fold's rules, given events, then the views' answers and the rule breaks it notes.
// `ViewScenario.given` checks the views' invariants after every event.

@Suite struct AccountFoldTests {
    /// A wrong-password refusal of `email`.
    private func wrongPassword(_ email: String) -> LedgerEvent { .signInFailed(SignInFailed(email: email, reason: .wrongPassword)) }

    /// Five wrong passwords for `email`, one a second apart.
    private func lockOut(_ email: String, in s: ViewScenario, from n: Int) throws {
        for i in 0..<5 { try s.given(wrongPassword(email), in: Fixtures.stream(.signin, n + i)) }
    }

    @Test func aSecondLiveAccountForOneEmailIsARuleBreak() throws {
        let s = ViewScenario(), first = RegistrationScript(1), second = RegistrationScript(2, email: RegistrationScript(1).email)
        try s.given(first.accountCreated(withImage: false), in: first.stream)
        try s.given(first.profileWritten(image: false), in: first.stream)
        #expect(s.views.ruleBreaks.isEmpty)
        let created = try s.given(second.accountCreated(withImage: false), in: second.stream)
        #expect(s.views.ruleBreaks == [RuleBreak(kind: .duplicateLiveAccount, seq: created.seq, uid: UUIDBits(uuid: second.uid)!)])
        // The email's account is the last created with it.
        #expect(s.views.users.live(email: first.email)?.uid == second.uid)
    }

    @Test func anEmailFreedByADeletionIsNoRuleBreak() throws {
        let s = ViewScenario(), first = RegistrationScript(3), again = RegistrationScript(4, email: RegistrationScript(3).email)
        try s.given(first.accountCreated(withImage: false), in: first.stream)
        try s.given(first.failed(.profile), in: first.stream)
        try s.given(first.accountDeleted, in: first.stream)
        try s.given(again.accountCreated(withImage: false), in: again.stream)
        #expect(s.views.ruleBreaks.isEmpty)
    }

    @Test func aSessionOfAnAccountThatIsNotActiveIsARuleBreak() throws {
        let s = ViewScenario(), r = RegistrationScript(5), ghost = RegistrationScript(6)
        let unknown = try s.given(ghost.sessionStarted(Fixtures.uuid(1)), in: Fixtures.stream(.session, 1))
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        let pending = try s.given(r.sessionStarted(Fixtures.uuid(2)), in: Fixtures.stream(.session, 2))
        try s.given(r.profileWritten(image: false), in: r.stream)
        try s.given(r.sessionStarted(Fixtures.uuid(3)), in: Fixtures.stream(.session, 3))
        try s.given(r.accountDeleted, in: r.stream)
        let deleted = try s.given(r.sessionStarted(Fixtures.uuid(4)), in: Fixtures.stream(.session, 4))
        #expect(s.views.ruleBreaks.map(\.kind) == [.sessionWithoutAccount, .sessionWithoutAccount, .sessionWithoutAccount])
        #expect(s.views.ruleBreaks.map(\.seq) == [unknown.seq, pending.seq, deleted.seq])
    }

    @Test func aSessionStartedWhileLockedIsARuleBreakAndOneAfterTheLockIsNot() throws {
        let s = ViewScenario(), r = RegistrationScript(7)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        try lockOut(r.email, in: s, from: 100)
        #expect(s.views.signIns.lockedUntil(r.email, at: s.clock.instant) != nil)
        let locked = try s.given(r.sessionStarted(Fixtures.uuid(10)), in: Fixtures.stream(.session, 10))
        #expect(s.views.ruleBreaks == [RuleBreak(kind: .signinWhileLocked, seq: locked.seq, uid: UUIDBits(uuid: r.uid)!)])
        // The session cleared the failures; five more, then a session 15 minutes after the last.
        #expect(s.views.signIns.lockedUntil(r.email, at: s.clock.instant) == nil)
        try lockOut(r.email, in: s, from: 200)
        s.clock.instant = s.clock.instant.adding(milliseconds: 15 * 60 * 1000)
        try s.given(r.sessionStarted(Fixtures.uuid(11)), in: Fixtures.stream(.session, 11))
        #expect(s.views.ruleBreaks.count == 1)
    }

    @Test func aWrongPasswordCheckedWhileLockedIsARuleBreak() throws {
        let s = ViewScenario(), r = RegistrationScript(13)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        try s.given(r.profileWritten(image: false), in: r.stream)
        try lockOut(r.email, in: s, from: 400)
        #expect(s.views.ruleBreaks.isEmpty, "five checks are what the lockout allows")
        try s.given(.signInFailed(SignInFailed(email: r.email, reason: .locked)), in: Fixtures.stream(.signin, 410))
        #expect(s.views.ruleBreaks.isEmpty, "a locked refusal checks no password")
        let sixth = try s.given(wrongPassword(r.email), in: Fixtures.stream(.signin, 411))
        #expect(s.views.ruleBreaks == [RuleBreak(kind: .passwordCheckedWhileLocked, seq: sixth.seq, uid: UUIDBits(uuid: r.uid)!)])
    }

    @Test func aNewAccountStartsWithoutTheFailuresOfAnEarlierOneWithItsEmail() throws {
        let s = ViewScenario(), first = RegistrationScript(8), again = RegistrationScript(9, email: RegistrationScript(8).email)
        try s.given(first.accountCreated(withImage: false), in: first.stream)
        try s.given(first.profileWritten(image: false), in: first.stream)
        try lockOut(first.email, in: s, from: 300)
        try s.given(first.accountDeleted, in: first.stream)
        #expect(s.views.signIns.lockedUntil(first.email, at: s.clock.instant) != nil)
        try s.given(again.accountCreated(withImage: false), in: again.stream)
        try s.given(again.profileWritten(image: false), in: again.stream)
        #expect(s.views.signIns.lockedUntil(first.email, at: s.clock.instant) == nil)
        try s.given(again.sessionStarted(Fixtures.uuid(12)), in: Fixtures.stream(.session, 12))
        #expect(s.views.ruleBreaks.isEmpty)
    }

    /// The views of `s` written to a checkpoint and read back, with the ids' fingerprints.
    private func roundTrip(_ s: ViewScenario) throws -> (LedgerViews, IDFingerprints, IDFingerprints) {
        var bytes: [UInt8] = []
        let ids = try #require(IDFingerprints(seed: UUIDBits(high: 1, low: 2), ids: s.recorded.compactMap { UUIDBits(uuid: $0.envelope.id) }))
        CheckpointWriter.write(s.views, ids: ids) { bytes.append(contentsOf: $0) }
        var at = 0
        let (back, backIDs, _) = try CheckpointReader.read { out in
            let n = min(out.count, bytes.count - at)
            out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[at..<(at + n)]))
            at += n
            return n
        }
        return (back, backIDs, ids)
    }

    /// A live account, a second one for its email (a rule break), that one deleted: by the fold the
    /// email's last account is deleted, so it has no live account, also read back from a checkpoint
    /// (whose rows come in first-creation order, the first account still active).
    @Test func aCheckpointRestoresTheEmailsLastAccountNotAnEarlierLiveOne() throws {
        let s = ViewScenario(), first = RegistrationScript(11), second = RegistrationScript(12, email: RegistrationScript(11).email)
        try s.given(first.accountCreated(withImage: false), in: first.stream)
        try s.given(first.profileWritten(image: false), in: first.stream)
        try s.given(second.accountCreated(withImage: false), in: second.stream)
        try s.given(second.accountDeleted, in: second.stream)
        #expect(s.views.users.live(email: first.email) == nil)
        let (back, _, _) = try roundTrip(s)
        #expect(back.users.live(email: first.email) == nil)
        #expect(back.users.rows == s.views.users.rows)
    }

    @Test func ruleBreaksSurviveACheckpointAndNarrowedViewsKeepNone() throws {
        let s = ViewScenario(), r = RegistrationScript(10)
        try s.given(r.sessionStarted(Fixtures.uuid(13)), in: Fixtures.stream(.session, 13))
        #expect(s.views.ruleBreaks.count == 1)
        let (back, backIDs, ids) = try roundTrip(s)
        #expect(back.ruleBreaks == s.views.ruleBreaks && backIDs == ids)
        var narrowed = s.views
        narrowed.narrow(to: [.users])
        #expect(narrowed.ruleBreaks.isEmpty)
    }
}

// MARK: - Through the CLI

@Suite struct AccountRuleAuditCLITests {
    /// Appends `events` to the file store of `dir` without the uniqueness condition: what a racing
    /// bug or an edited log could leave.
    private func append(_ events: [(LedgerEvent, String)], in dir: LedgerDir) throws {
        let store = FileEventStore(directory: dir.path, clock: FixedClock(step: 1000), random: SeededRandom(seed: 4))
        for (event, stream) in events { _ = try store.append([event], to: stream, expected: .any) }
    }

    @Test func auditReportsTheRuleBreaksTheLogShows() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("twice")
            let first = RegistrationScript(20, email: email), second = RegistrationScript(21, email: email)
            let ghost = RegistrationScript(22)
            try append([(first.accountCreated(withImage: false), first.stream), (first.profileWritten(image: false), first.stream),
                        (second.accountCreated(withImage: false), second.stream), (second.profileWritten(image: false), second.stream),
                        (ghost.sessionStarted(Fixtures.uuid(30)), Fixtures.stream(.session, 30))], in: dir)
            let result = try dir.run(["audit", "--json"])
            #expect(result.status == 1)
            let audit = try parseObject(result.stdout)
            let anomalies = try #require(audit["anomalies"] as? [[String: Any]])
            #expect(anomalies.compactMap { $0["kind"] as? String } == ["duplicate-live-account", "session-without-account"])
            #expect(anomalies.compactMap { $0["uid"] as? String } == [second.uid, ghost.uid])
            // From a checkpoint (the first read saved one), as of the last event, and with checkpoints
            // off (reads that fold only some views): the same.
            for (arguments, env) in [(["audit", "--json"], [:]), (["audit", "--json", "--as-of", "5"], [:]),
                                     (["audit", "--json"], ["LEDGER_CHECKPOINT_EVERY": "0"])] {
                let again = try parseObject(try dir.run(arguments, env: env).stdout)
                let kinds = (again["anomalies"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
                #expect(kinds == ["duplicate-live-account", "session-without-account"], "\(arguments) \(env)")
            }
        }
    }

    @Test func auditSeesASignInWhileLocked() throws {
        try withLedgerDir { dir in
            let r = RegistrationScript(23, email: uniqueEmail("locked"))
            var events: [(LedgerEvent, String)] = [(r.accountCreated(withImage: false), r.stream), (r.profileWritten(image: false), r.stream)]
            for i in 0..<5 {
                events.append((.signInFailed(SignInFailed(email: r.email, reason: .wrongPassword)), Fixtures.stream(.signin, 40 + i)))
            }
            events.append((r.sessionStarted(Fixtures.uuid(31)), Fixtures.stream(.session, 31)))
            try append(events, in: dir)
            let audit = try parseObject(try dir.run(["audit", "--json"]).stdout)
            let anomalies = try #require(audit["anomalies"] as? [[String: Any]])
            #expect(anomalies.compactMap { $0["kind"] as? String } == ["signin-while-locked"])
        }
    }
}
