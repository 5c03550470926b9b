import LedgerDomain
import Testing

// MARK: - AccountFoldKeysTests

/// `AccountFold.keys(of:)` names every email and account `evolve` reads for an event, so a storage
/// that loads rows on demand (the PostgreSQL tables) never folds an event against a row it did not load.
@Suite struct AccountFoldKeysTests {
    /// An account fold state that notes every email and account the fold asks about.
    struct Spy: AccountFoldState {
        var accounts: [UUIDBits: AccountFacts<String>] = [:]
        var last: [String: UUIDBits] = [:]
        var failures: [String: [Timestamp]] = [:]
        var emailsRead: Set<String> = []
        var accountsRead: Set<UUIDBits> = []

        func emailKey(_ email: String) -> String { email }
        func account(_ uid: UUIDBits) -> AccountFacts<String>? { accounts[uid] }
        func lastAccount(of email: String) -> UUIDBits? { last[email] }
        mutating func recordCreation(of uid: UUIDBits, email: String, status: AccountStatus, by event: ViewEvent) {
            accounts[uid] = AccountFacts(status: status, email: email); last[email] = uid
        }
        mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { accounts[uid]?.status = status }
        mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) {}
        mutating func recordEmailChange(of uid: UUIDBits, to email: String, by event: ViewEvent) {
            accounts[uid]?.email = email; last[email] = uid
        }
        func mayHaveFailures(_ email: String) -> Bool { !(failures[email] ?? []).isEmpty }
        func recentFailures(of email: String) -> [Timestamp] { failures[email] ?? [] }
        mutating func appendFailure(of email: String, at time: Timestamp, by event: ViewEvent) { failures[email, default: []].append(time) }
        mutating func clearFailures(of email: String) { failures[email] = [] }
    }

    /// The emails and accounts `evolve` touched: every email key it made and every account it read.
    private func touched(by event: ViewEvent, in state: Spy) -> (emails: Set<String>, accounts: Set<UUIDBits>) {
        struct Recorder: AccountFoldState {
            var inner: Spy
            var emails: Set<String> = [], uids: Set<UUIDBits> = []
            func emailKey(_ email: String) -> String { email }
            func account(_ uid: UUIDBits) -> AccountFacts<String>? { inner.account(uid) }
            func lastAccount(of email: String) -> UUIDBits? { inner.lastAccount(of: email) }
            mutating func recordCreation(of uid: UUIDBits, email: String, status: AccountStatus, by event: ViewEvent) {
                uids.insert(uid); emails.insert(email); inner.recordCreation(of: uid, email: email, status: status, by: event)
            }
            mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { uids.insert(uid); inner.setStatus(status, of: uid) }
            mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) { uids.insert(uid); inner.recordPassword(of: uid, by: event) }
            mutating func recordEmailChange(of uid: UUIDBits, to email: String, by event: ViewEvent) {
                uids.insert(uid); emails.insert(email); inner.recordEmailChange(of: uid, to: email, by: event)
            }
            func mayHaveFailures(_ email: String) -> Bool { inner.mayHaveFailures(email) }
            func recentFailures(of email: String) -> [Timestamp] { inner.recentFailures(of: email) }
            mutating func appendFailure(of email: String, at time: Timestamp, by event: ViewEvent) {
                emails.insert(email); inner.appendFailure(of: email, at: time, by: event)
            }
            mutating func clearFailures(of email: String) { emails.insert(email); inner.clearFailures(of: email) }
        }
        var recorder = Recorder(inner: state)
        AccountFold.evolve(&recorder, event, policy: SignInPolicy())
        return (recorder.emails, recorder.uids)
    }

    @Test func everyEventsKeysCoverWhatTheFoldChanges() {
        let random = SeededRandom(seed: 31)
        let emails = ["a@example.com", "b@example.com", "c@example.com"]
        var uids: [UUIDBits] = [], state = Spy()
        for seq in 1...2_000 {
            let at = Timestamp(millis: Int64(seq) * 1_000)
            let uid = uids.isEmpty || random.next() % 3 == 0 ? UUIDBits(high: random.next(), low: random.next()) : uids[Int(random.next() % UInt64(uids.count))]
            let email = emails[Int(random.next() % 3)]
            let fact: ViewEvent.Fact
            switch random.next() % 8 {
            case 0: fact = .accountCreated(uid: uid, email: email, withImage: nil); uids.append(uid)
            case 1: fact = .profileWritten(uid: uid, userName: "n", profileImage: nil, createdAt: at)
            case 2: fact = .accountDeleted(uid: uid)
            case 3: fact = .signInFailed(email: email, reason: .wrongPassword)
            case 4: fact = .passwordChanged(uid: uid, reason: random.next() % 2 == 0 ? .reset : .change)
            case 5: fact = .emailChanged(uid: uid, email: email, previousEmail: "")
            case 6: fact = .accountDisabled(uid: uid)
            default: fact = .sessionStarted(session: UUIDBits(high: random.next(), low: 1), uid: uid, expiresAt: at)
            }
            let event = ViewEvent(seq: seq, at: at, category: .registration, stream: .zero, fact: fact)
            let keys = AccountFold.keys(of: event.fact)
            let touched = touched(by: event, in: state)
            // Every account the fold changes is the event's account; every email it changes is the
            // event's email or the email of the event's account (which loading the account brings).
            #expect(touched.accounts.isSubset(of: Set([keys.account].compactMap { $0 })), "seq \(seq): \(fact)")
            let reachable = Set([keys.email, keys.account.flatMap { state.accounts[$0]?.email }].compactMap { $0 })
            #expect(touched.emails.isSubset(of: reachable), "seq \(seq): \(fact)")
            AccountFold.evolve(&state, event, policy: SignInPolicy())
        }
    }
}
