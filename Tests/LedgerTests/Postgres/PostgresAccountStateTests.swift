import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - PostgresAccountStateTests

/// The PostgreSQL store's account-state tables are a cache of the log: lines inserted without them
/// (a database from before them, a copy restored behind its log) are folded in before sign-ins and
/// the email condition use them, and a password hash is taken only from a line the next one links to.
struct PostgresAccountStateTests {
    private let live = "live@example.com", deleted = "deleted@example.com", late = "late@example.com"

    /// Accounts and refusals the answers below depend on: `live` active with three wrong passwords;
    /// `deleted` created then deleted; `late` refused twice before its account was created, which
    /// clears them.
    private func appendHistory(to store: PostgresEventStore, from n: Int) throws {
        let a = Fixtures.uuid(n), b = Fixtures.uuid(n + 1), c = Fixtures.uuid(n + 2)
        let registration = Fixtures.stream(.registration, n)
        _ = try store.append([.accountCreated(AccountCreated(uid: a, email: live, passwordHash: "$y$j9T$a$live")),
                              .profileWritten(ProfileWritten(uid: a, email: live, userName: "L", profileImageName: nil, createdAt: FixedClock.start))],
                             to: registration, expected: .noStream)
        _ = try store.append([.accountCreated(AccountCreated(uid: b, email: deleted, passwordHash: "$y$j9T$b$gone")),
                              .accountDeleted(AccountDeleted(uid: b))], to: Fixtures.stream(.registration, n + 1), expected: .noStream)
        for i in 0..<3 { try refuse(live, store, n * 10 + i) }
        for i in 3..<5 { try refuse(late, store, n * 10 + i) }
        _ = try store.append([.accountCreated(AccountCreated(uid: c, email: late, passwordHash: "$y$j9T$c$late")),
                              .profileWritten(ProfileWritten(uid: c, email: late, userName: "T", profileImageName: nil, createdAt: FixedClock.start))],
                             to: Fixtures.stream(.registration, n + 2), expected: .noStream)
    }

    private func refuse(_ email: String, _ store: PostgresEventStore, _ n: Int) throws {
        _ = try store.append([.signInFailed(SignInFailed(email: email, reason: .wrongPassword))], to: Fixtures.stream(.signin, n), expected: .noStream)
    }

    /// What folding the whole log gives for `email`.
    private func folded(_ email: String, _ store: PostgresEventStore) throws -> SignInRecord {
        try SessionService(store: SignInIndexTests.FoldingStore(store), signInLocks: SequentialSignInLocks(), clock: FixedClock(), random: SecureRandom(),
                           hasher: PasswordHasher(cost: 1)).signInRecord(email: email)
    }

    /// Sign-ins and the email condition answer what the fold of the whole log gives.
    private func expectAnswersOfTheFold(_ store: PostgresEventStore) throws {
        for email in [live, deleted, late, "nobody@example.com"] {
            #expect(try store.signInRecord(email: email) == (try folded(email, store)), "\(email)")
        }
        #expect(try store.signInRecord(email: live)?.recentFailures.count == 3)
        #expect(try store.signInRecord(email: late) == SignInRecord(liveStatus: .active, account: SignInRecord.Account(uid: Fixtures.uuid(702), passwordHash: "$y$j9T$c$late")))
        let again = AccountCreated(uid: Fixtures.uuid(790), email: live, passwordHash: "$y$j9T$x$x")
        #expect(throws: StoreError.self) {
            _ = try store.append([.accountCreated(again)], to: Fixtures.stream(.registration, 790), expected: .noStream, condition: .uniqueEmails)
        }
        let reused = AccountCreated(uid: Fixtures.uuid(791), email: deleted, passwordHash: "$y$j9T$y$y")
        _ = try store.append([.accountCreated(reused)], to: Fixtures.stream(.registration, 791), expected: .noStream, condition: .uniqueEmails)
        #expect(try store.signInRecord(email: deleted) == (try folded(deleted, store)))
    }

    @Test func aDatabaseFromBeforeTheAccountTablesFoldsItsLogIntoThem() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            try store.createSchema()
            try appendHistory(to: store, from: 700)
            // The database as an older ledger left it: no account-state tables.
            try PostgresConnection(url).execute("DROP TABLE IF EXISTS ledger_accounts, ledger_account_emails, ledger_signin_failures, ledger_account_state")
            try expectAnswersOfTheFold(PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 4)))
        }
    }

    @Test func anAppendToADatabaseFromBeforeTheAccountTablesCreatesThem() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            try store.createSchema()
            try appendHistory(to: store, from: 700)
            try PostgresConnection(url).execute("DROP TABLE IF EXISTS ledger_accounts, ledger_account_emails, ledger_signin_failures, ledger_account_state")
            let fresh = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 4))
            try refuse(live, fresh, 7_999)
            let state = try PostgresConnection(url).execute("SELECT seq FROM ledger_account_state")
            #expect(state.int(0, 0) == (try fresh.head().seq))
            #expect(try fresh.signInRecord(email: live)?.recentFailures.count == 4)
        }
    }

    @Test func tablesBehindTheHeadFoldTheLinesTheyLack() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            try store.createSchema()
            // The tables as of the first line, restored under a log that has grown since (as lines
            // inserted by a ledger that does not keep them leave them).
            let admin = try PostgresConnection(url)
            _ = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 1), expected: .noStream)
            for table in ["ledger_account_state", "ledger_accounts", "ledger_account_emails", "ledger_signin_failures"] {
                try admin.execute("CREATE TABLE early_\(table) AS SELECT * FROM \(table)")
            }
            try appendHistory(to: store, from: 700)
            for table in ["ledger_accounts", "ledger_account_emails", "ledger_signin_failures", "ledger_account_state"] {
                try admin.execute("TRUNCATE \(table)")
                try admin.execute("INSERT INTO \(table) SELECT * FROM early_\(table)")
            }
            #expect(try admin.execute("SELECT seq FROM ledger_account_state").int(0, 0) == 1)
            try expectAnswersOfTheFold(PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 4)))
            #expect(try admin.execute("SELECT seq FROM ledger_account_state").int(0, 0) == (try store.head().seq))
        }
    }

    @Test func anImportLeavesTheTablesAtItsHead() throws {
        try withTempDirectory { dir in
            let file = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 2))
            let uid = Fixtures.uuid(900)
            _ = try file.append([.accountCreated(AccountCreated(uid: uid, email: live, passwordHash: "$y$j9T$i$imported")),
                                 .profileWritten(ProfileWritten(uid: uid, email: live, userName: "I", profileImageName: nil, createdAt: FixedClock.start))],
                                to: Fixtures.stream(.registration, 900), expected: .noStream)
            _ = try file.append([.signInFailed(SignInFailed(email: live, reason: .wrongPassword))], to: Fixtures.stream(.signin, 900), expected: .noStream)
            try PostgresServer.get().withDatabase { url in
                let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
                try store.createSchema()
                _ = try store.importLog(path: file.logPath)
                #expect(try PostgresConnection(url).execute("SELECT seq FROM ledger_account_state").int(0, 0) == 3)
                #expect(try store.signInRecord(email: live) == SignInRecord(liveStatus: .active, account: SignInRecord.Account(uid: uid, passwordHash: "$y$j9T$i$imported"),
                                                                            recentFailures: [try store.readAll().last!.at]))
            }
        }
    }

    // MARK: - A password hash whose line no longer links

    /// A planted password hash on PostgreSQL: an account's `AccountCreated` line given another password
    /// hash, its own hash recomputed (so it checks alone), the chain broken at the next line.
    @Test func aPasswordHashFromALineTheNextOneDoesNotLinkToIsRefused() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            try store.createSchema()
            let hasher = PasswordHasher(cost: 1)
            let uid = Fixtures.uuid(800), real = try hasher.hash("the real password", random: SeededRandom(seed: 1))
            let planted = try hasher.hash("the planted password", random: SeededRandom(seed: 2))
            _ = try store.append([.accountCreated(AccountCreated(uid: uid, email: live, passwordHash: real)),
                                  .profileWritten(ProfileWritten(uid: uid, email: live, userName: "L", profileImageName: nil, createdAt: FixedClock.start))],
                                 to: Fixtures.stream(.registration, 800), expected: .noStream)
            #expect(try store.signInRecord(email: live)?.account?.passwordHash == real)

            // The planted hash sealed with the account's own key from `ledger_keys`: the line opens,
            // only the chain can refuse it.
            let keys = FolderKeys(postgres: url)
            let created = try #require(try postgresEnvelopes(url, where: "seq = 1").first)
            #expect(try keys.text("passwordHash", of: created) == real)
            try rewritePostgresRow(url, with: try keys.edited(created) { $0["passwordHash"] = .string(planted) })

            let error = try #require(throws: StoreError.self) { _ = try store.signInRecord(email: live) }
            #expect(error.code == .damaged && error.problem?.kind == .brokenChain && error.message.contains("ledger verify"))
            let sessions = SessionService(store: store, signInLocks: SequentialSignInLocks(), clock: FixedClock(step: 1), random: SeededRandom(seed: 8), hasher: hasher)
            #expect(throws: StoreError.self) { _ = try sessions.login(email: live, password: "the planted password") }
            #expect(try store.head().seq == 2)  // nothing appended: neither a session nor a refusal
        }
    }

    /// A status this build cannot read (a newer build's, or a hand's typo) refuses an append that
    /// asks about its email, instead of reading the account that holds it as none.
    @Test func anUnreadableStatusRefusesTheEmailCheckInsteadOfFreeingTheEmail() throws {
        try PostgresServer.get().withDatabase { url in
            let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            try store.createSchema()
            try appendHistory(to: store, from: 800)
            _ = try PostgresConnection(url).execute("UPDATE ledger_accounts SET status = 'suspended' WHERE email = $1", [live])
            let before = try store.head()
            let again = AccountCreated(uid: Fixtures.uuid(890), email: live, passwordHash: "$y$j9T$x$x")
            let error = try #require(throws: StoreError.self) {
                _ = try store.append([.accountCreated(again)], to: Fixtures.stream(.registration, 890), expected: .noStream, condition: .uniqueEmails)
            }
            #expect(error.code == .damaged, "\(error)")
            #expect(try store.head() == before)  // nothing appended
        }
    }
}
