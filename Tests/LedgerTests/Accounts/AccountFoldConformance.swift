@testable import LedgerKit
import LedgerDomain
import Testing

// MARK: - AccountFoldConformance

/// Every `AccountFoldState` (the views, the dictionaries a folding process keeps, the writers'
/// index's slots, the PostgreSQL account tables) runs through the same random histories, and after
/// each event answers what `AccountFold` asks of it exactly as the views do: each email's last and
/// live account, the account that may sign in, its consecutive wrong passwords and lockout, each
/// account's status and email, and the rule each event breaks. As `EventStoreConformance` does for
/// stores: a storage that keeps the fold's state its own way may not change what it means.
@Suite struct AccountFoldConformance {
    /// What one storage answers after an event.
    struct Answers: Equatable {
        struct PerEmail: Equatable {
            var last: UUIDBits?, live: UUIDBits?, signIn: UUIDBits?, liveStatus: AccountStatus?
            var failures: [Timestamp], lockedUntil: Timestamp?
        }
        struct PerAccount: Equatable {
            var status: AccountStatus?
            /// The index in the history's emails of the email the account holds (nil: none of them).
            var email: Int?
        }
        var emails: [PerEmail] = [], accounts: [PerAccount] = [], broken: RuleBreak?
    }

    /// One storage under test: folds an event, answers the questions.
    struct Storage {
        let name: String
        let apply: (ViewEvent) throws -> RuleBreak?
        let answer: (_ emails: [String], _ uids: [UUIDBits], _ at: Timestamp) throws -> Answers
    }

    static let policy = SignInPolicy()
    static let emails = (0..<4).map { "person\($0)@example.com" }
    static let uids = (0..<10).map { UUIDBits(high: 0xACC0, low: UInt64($0)) }

    /// The answers of `state`, through `AccountFold`'s own questions.
    static func answers<State: AccountFoldState>(_ state: State, emails: [String], uids: [UUIDBits], at now: Timestamp) -> Answers {
        var out = Answers()
        for email in emails {
            let key = state.emailKey(email)
            out.emails.append(Answers.PerEmail(
                last: state.lastAccount(of: key), live: AccountFold.liveAccount(of: key, in: state),
                signIn: AccountFold.signInAccount(of: key, in: state), liveStatus: AccountFold.liveStatus(of: key, in: state),
                failures: Array(state.recentFailures(of: key).suffix(policy.maxFailures)),
                lockedUntil: AccountFold.lockedUntil(key, in: state, policy: policy, at: now)))
        }
        for uid in uids {
            let facts = state.account(uid)
            out.accounts.append(Answers.PerAccount(status: facts?.status,
                                                   email: facts.flatMap { f in emails.firstIndex { state.emailKey($0) == f.email } }))
        }
        return out
    }

    /// A storage over a value-type state.
    static func storage<State: AccountFoldState>(_ name: String, _ initial: State) -> Storage {
        let box = StateBox(initial)
        return Storage(name: name, apply: { AccountFold.evolve(&box.state, $0, policy: policy) },
                       answer: { answers(box.state, emails: $0, uids: $1, at: $2) })
    }

    /// The writers' index's slots, in a table in memory, folded as writers fold them.
    static func indexStorage() throws -> Storage {
        let table = try #require(WritersIndex.inMemory())
        return Storage(name: "writers' index", apply: { event in
            var state = IndexAccounts(table: table, seq: Int64(event.seq), offset: event.seq * 100, lineHash: UInt64(event.seq) &* 0x9E37_79B9)
            let broken = AccountFold.evolve(&state, event, policy: policy)
            #expect(!state.failed)
            return broken
        }, answer: { answers(IndexAccounts(table: table), emails: $0, uids: $1, at: $2) })
    }

    /// A random history of the events the fold reads, each uid created at most once (a uid created
    /// again leaves an email's answer to the order of a view's table, which the stores defer on).
    static func history(seed: UInt64, count: Int) -> [ViewEvent] {
        let random = SeededRandom(seed: seed)
        var at = Timestamp(millis: 1_800_000_000_000), created: [UUIDBits] = [], events: [ViewEvent] = []
        var burst = 0, burstEmail = emails[0]
        for seq in 1...count {
            at = at.adding(milliseconds: random.pick([Int64(1), 1_000, 30_000, 60_000, 240_000, 3_600_000]))
            if burst == 0, random.oneIn(12) { (burst, burstEmail) = (4 + random.next(4), random.pick(emails)) }
            if burst > 0 {
                // Wrong passwords close together, so lockouts (and sign-ins while locked) happen.
                burst -= 1
                let fact: ViewEvent.Fact = burst == 0 && !created.isEmpty && random.oneIn(2)
                    ? .sessionStarted(session: UUIDBits(high: 0x5E55, low: UInt64(seq)), uid: random.pick(created), expiresAt: at)
                    : .signInFailed(email: burstEmail, reason: .wrongPassword)
                events.append(ViewEvent(seq: seq, at: at, category: .registration, stream: UUIDBits(high: 0x57, low: UInt64(seq)), fact: fact))
                continue
            }
            let uid = created.isEmpty ? uids[0] : random.pick(created)
            let email = random.pick(emails)
            let fact: ViewEvent.Fact
            switch random.next(14) {
            case 0, 1:
                guard created.count < uids.count else { fact = .signInFailed(email: email, reason: .wrongPassword); break }
                let new = uids[created.count]
                created.append(new)
                fact = .accountCreated(uid: new, email: email, withImage: nil)
            case 2, 3: fact = .profileWritten(uid: uid, userName: "P", profileImage: nil, createdAt: at)
            case 4: fact = .accountDeleted(uid: uid)
            case 5: fact = .accountDisabled(uid: uid)
            case 6: fact = .accountEnabled(uid: uid)
            case 7: fact = .passwordChanged(uid: uid, reason: random.pick([.change, .reset]))
            case 8: fact = .emailChanged(uid: uid, email: email, previousEmail: "")
            case 9, 10, 11: fact = .signInFailed(email: email, reason: random.pick([.wrongPassword, .wrongPassword, .wrongPassword, .unknownEmail, .locked]))
            default: fact = .sessionStarted(session: UUIDBits(high: 0x5E55, low: UInt64(seq)), uid: uid, expiresAt: at.adding(milliseconds: 3_600_000))
            }
            events.append(ViewEvent(seq: seq, at: at, category: .registration, stream: UUIDBits(high: 0x57, low: UInt64(seq)), fact: fact))
        }
        return events
    }

    /// Runs `storages` through the history of `seed`, comparing each with the views after every event;
    /// checks that the history reached the cases that matter (a lockout, a rule broken, an email moved).
    static func conform(_ storages: [Storage], seed: UInt64, count: Int) throws {
        var views = LedgerViews()
        var disagreements = 0, lockouts = 0, breaks = 0, moves = 0
        defer {
            #expect(lockouts > 0, "seed \(seed): no lockout")
            #expect(breaks > 0, "seed \(seed): no rule broken")
            #expect(moves > 0, "seed \(seed): no email moved")
        }
        for event in history(seed: seed, count: count) {
            var expected = answers(views, emails: emails, uids: uids, at: event.at)
            expected.broken = AccountFold.evolve(&views, event, policy: policy)
            let after = answers(views, emails: emails, uids: uids, at: event.at.adding(milliseconds: 1))
            lockouts += after.emails.filter { $0.lockedUntil != nil }.count
            breaks += expected.broken == nil ? 0 : 1
            if case .emailChanged = event.fact, after.accounts != expected.accounts { moves += 1 }
            for storage in storages {
                let broken = try storage.apply(event)
                var got = try storage.answer(emails, uids, event.at.adding(milliseconds: 1))
                #expect(broken == expected.broken, "\(storage.name), seq \(event.seq): \(event.fact)")
                got.broken = nil
                if got != after {
                    disagreements += 1
                    #expect(got == after, "\(storage.name) after seq \(event.seq): \(event.fact)")
                }
            }
            if disagreements > 3 { return }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func everyStorageInMemoryAnswersAsTheViews(seed: UInt64) throws {
        try Self.conform([Self.storage("account table", AccountTable()), try Self.indexStorage()], seed: seed, count: 600)
    }

    /// A storage that says it keeps no failures (the views without the sign-in view, the users view)
    /// answers every event as when the fold is told it may keep some: the fold skips reading an
    /// account's email for a session only where no email can have failures.
    @Test(arguments: [UInt64(11), 12, 13])
    func keepingNoFailuresChangesNoAnswer(seed: UInt64) throws {
        var narrowed = LedgerViews()
        narrowed.narrow(to: [.users, .sessions])
        let states: [(String, any AccountFoldState)] = [("views without sign-ins", narrowed), ("users view", UserView())]
        for (name, state) in states {
            #expect(!state.keepsFailures, "\(name)")
            try Self.conform(name, state, seed: seed)
        }
        #expect(LedgerViews().keepsFailures)
    }

    /// `conform`'s check of one state against the same state told that it may keep failures.
    private static func conform<State: AccountFoldState>(_ name: String, _ initial: State, seed: UInt64) throws {
        var fast = initial, plain = KeepingFailures(state: initial)
        var sessions = 0
        for event in history(seed: seed, count: 600) {
            if case .sessionStarted = event.fact { sessions += 1 }
            let broken = AccountFold.evolve(&fast, event, policy: policy)
            #expect(broken == AccountFold.evolve(&plain, event, policy: policy), "\(name), seq \(event.seq): \(event.fact)")
            for email in emails { #expect(!fast.mayHaveFailures(fast.emailKey(email)), "\(name): \(email)") }
            #expect(answers(fast, emails: emails, uids: uids, at: event.at) == answers(plain, emails: emails, uids: uids, at: event.at),
                    "\(name), seq \(event.seq)")
        }
        #expect(sessions > 20)
    }

    /// The PostgreSQL tables, their rows written and forgotten every few events so that the answers
    /// come back from SQL.
    @Test(arguments: [UInt64(7), 8])
    func thePostgresTablesAnswerAsTheViews(seed: UInt64) throws {
        try PostgresServer.get().withDatabase { url in
            try PostgresEventStore(url: url).createSchema()
            let connection = try PostgresConnection(url)
            let accounts = PostgresAccounts(connection: connection)
            var applied = 0
            let storage = Storage(name: "PostgreSQL tables", apply: { event in
                var state = accounts
                let broken = AccountFold.evolve(&state, event, policy: Self.policy)
                try accounts.check()
                applied += 1
                if applied % 7 == 0 {
                    try accounts.flush(through: nil)
                    accounts.forget()
                }
                return broken
            }, answer: { Self.answers(accounts, emails: $0, uids: $1, at: $2) })
            try Self.conform([storage], seed: seed, count: 300)
        }
    }
}

/// A fold state held by reference, for the closures of a `Storage`.
private final class StateBox<State> {
    var state: State
    init(_ state: State) { self.state = state }
}

/// `state`, except that it tells the fold it may keep failures: the fold without its shortcut.
private struct KeepingFailures<State: AccountFoldState>: AccountFoldState {
    var state: State
    var keepsFailures: Bool { true }
    func emailKey(_ email: String) -> State.EmailKey { state.emailKey(email) }
    func account(_ uid: UUIDBits) -> AccountFacts<State.EmailKey>? { state.account(uid) }
    func status(of uid: UUIDBits) -> AccountStatus? { state.status(of: uid) }
    func lastAccount(of email: State.EmailKey) -> UUIDBits? { state.lastAccount(of: email) }
    mutating func recordCreation(of uid: UUIDBits, email: State.EmailKey, status: AccountStatus, by event: ViewEvent) {
        state.recordCreation(of: uid, email: email, status: status, by: event)
    }
    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { state.setStatus(status, of: uid) }
    mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) { state.recordPassword(of: uid, by: event) }
    mutating func recordEmailChange(of uid: UUIDBits, to email: State.EmailKey, by event: ViewEvent) {
        state.recordEmailChange(of: uid, to: email, by: event)
    }
    func mayHaveFailures(_ email: State.EmailKey) -> Bool { state.mayHaveFailures(email) }
    func recentFailures(of email: State.EmailKey) -> [Timestamp] { state.recentFailures(of: email) }
    mutating func appendFailure(of email: State.EmailKey, at time: Timestamp, by event: ViewEvent) {
        state.appendFailure(of: email, at: time, by: event)
    }
    mutating func clearFailures(of email: State.EmailKey) { state.clearFailures(of: email) }
}
