import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignInIndexTests

/// `FileEventStore.signInRecord` answers from the writers' index exactly what folding the users and
/// sign-in views over the whole log gives, and `SessionService.login` uses it: it signs in without
/// reading the log, and a line it reads that does not check falls back to the fold.
struct SignInIndexTests {
    /// Forwards to a store but has no index of its own, so a `SessionService` over it folds the log.
    final class FoldingStore: LedgerStore {
        let inner: any LedgerStore
        init(_ inner: any LedgerStore) { self.inner = inner }
        func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
            try inner.append(parts, condition: condition)
        }
        func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws { try inner.read(from: seq, body) }
        func readStream(_ stream: String) throws -> [RecordedEvent] { try inner.readStream(stream) }
        func head() throws -> Head { try inner.head() }
        func streamVersion(_ stream: String) throws -> Int { try inner.streamVersion(stream) }
        func readIndexedStream(_ stream: String) throws -> [RecordedEvent] { try inner.readStream(stream) }
        func signInRecord(email: String) throws -> SignInRecord? { nil }
        func scanViews(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent] {
            try inner.scanViews(wanted: wanted, visit: visit)
        }
        func currentViews(now: Timestamp, usingCheckpoint: Bool) throws -> LedgerViews { try viewsFoldedFromEveryEvent() }
        var viewsMayComeFromACheckpoint: Bool { false }
        func repairTail() throws -> Bool { try inner.repairTail() }
    }

    private static let emails = (0..<4).map { "person\($0)@example.com" }
    private static let uids = (0..<6).map { Fixtures.uuid(500 + $0) }

    /// Appends one random event of the kinds a sign-in reads (accounts created, written, deleted,
    /// given a new password; refused sign-ins; session starts), after moving the clock on by a random step.
    private func appendRandomEvent(_ n: Int, to store: any LedgerStore, clock: FixedClock, random: SeededRandom) throws {
        clock.instant = clock.instant.adding(milliseconds: random.pick([Int64(1), 1_000, 60_000, 240_000, 900_000, 3_600_000]))
        let u = random.next(Self.uids.count), uid = Self.uids[u]
        // Each uid keeps one email. A uid created again with another email (never done by `register`,
        // which makes a new uid per registration) leaves the fold's answer for the old email to the
        // order of the users view's email table, seeded per process; `anEmailWhoseUidMovedAwayFolds`
        // covers the stores' side of that case (they defer to the fold).
        let email = Self.emails[u % Self.emails.count]
        let (event, stream): (LedgerEvent, String)
        var expected = ExpectedVersion.noStream
        switch random.next(11) {
        case 0, 1:
            event = .accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$salt\(n)$hash\(n)"))
            stream = Fixtures.stream(.registration, 10_000 + n)
        case 2, 3:
            event = .profileWritten(ProfileWritten(uid: uid, email: email, userName: "P \(n)", profileImageName: nil, createdAt: clock.instant))
            stream = Fixtures.stream(.registration, 10_000 + n)
        case 4:
            event = .accountDeleted(AccountDeleted(uid: uid))
            stream = Fixtures.stream(.registration, 10_000 + n)
        case 5, 6, 7:
            let reason = random.pick([SignInFailure.wrongPassword, .wrongPassword, .wrongPassword, .unknownEmail, .locked])
            event = .signInFailed(SignInFailed(email: random.pick(Self.emails), reason: reason))
            stream = Fixtures.stream(.signin, 10_000 + n)
        case 10:
            event = .passwordChanged(PasswordChanged(uid: uid, passwordHash: "$y$j9T$new\(n)$hash\(n)", reason: random.pick([PasswordChangeReason.change, .reset])))
            (stream, expected) = (StreamCategory.account.stream(uid), .any)
        default:
            event = .sessionStarted(SessionStarted(sessionId: Fixtures.uuid(20_000 + n), uid: uid, tokenHash: Fixtures.hex64(n),
                                                   expiresAt: clock.instant.adding(milliseconds: 3_600_000)))
            stream = Fixtures.stream(.session, 10_000 + n)
        }
        _ = try store.append([event], to: stream, expected: expected)
    }

    /// Policies a record can serve: each count it keeps, with two windows.
    private static let policies: [SignInPolicy] = (1...SignInRecord.keptFailures).map { max in
        var policy = SignInPolicy()
        policy.maxFailures = max
        policy.window = max == 3 ? 3_600_000 : 900_000
        return policy
    }

    /// Calls `body` with a maker of stores over one fresh, empty storage of `backend` (each call: another process).
    func withStores(_ backend: Backend, clock: FixedClock, _ body: (_ make: (UInt64) throws -> any LedgerStore) throws -> Void) throws {
        switch backend {
        case .postgres:
            let server = try PostgresServer.get()
            let url = try server.createDatabase()
            defer { server.dropDatabase(url) }
            try PostgresEventStore(url: url).createSchema()
            try body { seed in PostgresEventStore(url: url, clock: clock, random: SeededRandom(seed: seed)) }
        default:
            try withTempDirectory { dir in
                try body { seed in FileEventStore(directory: dir, clock: clock, random: SeededRandom(seed: seed)) }
            }
        }
    }

    /// The file store's index and the PostgreSQL store's queries give what the fold gives.
    @Test(arguments: [Backend.file, .postgres], [UInt64(1), 2, 3])
    func theStoreAnswersWhatTheFoldGives(backend: Backend, seed: UInt64) throws {
        let clock = FixedClock()
        try withStores(backend, clock: clock) { make in
            let random = SeededRandom(seed: seed)
            var store = try make(seed + 100)
            // The oracle: the users view and one sign-in view per policy, folded as events are appended.
            var views = Self.policies.map(LedgerViews.folding), folded = 0
            var answered = 0, withAccount = 0, locked = 0
            let count = 240
            for n in 0..<count {
                // Now and then another process (a new store) appends, catching the index up first.
                if random.oneIn(4) { store = try make(seed * 1000 + UInt64(n)) }
                try appendRandomEvent(n, to: store, clock: clock, random: random)
                try store.read(from: folded + 1) { event in
                    for i in views.indices { views[i].apply(event) }
                    folded = event.seq
                    return true
                }
                for email in Self.emails {
                    guard let indexed = try store.signInRecord(email: email) else { continue }
                    answered += 1
                    if indexed.account != nil { withAccount += 1 }
                    // The whole record, against `SessionService`'s own fold of the log (every few events: it reads it all).
                    if n % 6 == 5 || n == count - 1 {
                        let fold = try SessionService(store: FoldingStore(store), signInLocks: SequentialSignInLocks(), clock: clock, random: SecureRandom(),
                                                      hasher: PasswordHasher(cost: 1)).signInRecord(email: email)
                        #expect(indexed == fold, "\(backend) seed \(seed), event \(n), \(email)")
                    }
                    // The lock decision agrees under every policy a record can serve.
                    for (policy, view) in zip(Self.policies, views) {
                        for now in [clock.instant, clock.instant.adding(milliseconds: 600_000)] {
                            let expected = view.signIns.lockedUntil(email, at: now)
                            #expect(policy.lockedUntil(recent: indexed.recentFailures, at: now) == expected, "seed \(seed), event \(n)")
                            if expected != nil { locked += 1 }
                        }
                    }
                }
            }
            // The index answers nearly always (only a uid created again with another email makes it fold),
            // and the histories reach accounts that may sign in and emails that are locked.
            #expect(answered >= count * 4 * 9 / 10)
            #expect(withAccount > 50)
            #expect(locked > 0)
        }
    }

    // MARK: - Through login

    /// Registers `email` on a file store in `dir`, then appends other users' sign-ups around it.
    private func registered(_ email: String, in dir: String) throws -> FileEventStore {
        let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
        let coordinator = RegistrationCoordinator(store: store, blobs: MemoryBlobStore(), directory: dir, clock: FixedClock(step: 1),
                                                      random: SeededRandom(seed: 6), hasher: PasswordHasher(cost: 1), failpoints: Failpoints())
        for (i, address) in ["before@example.com", email, "after@example.com"].enumerated() {
            let result = try coordinator.register(RegistrationInput(email: address, userName: "User \(i)", password: "password number \(i)", image: nil),
                                                  idempotencyKey: nil)
            #expect(result.outcome == .completed)
        }
        return store
    }

    private func service(_ store: any LedgerStore, maxFailures: Int = 5) -> SessionService {
        let service = SessionService(store: store, signInLocks: SequentialSignInLocks(), clock: FixedClock(step: 1), random: SeededRandom(seed: 8), hasher: PasswordHasher(cost: 1))
        service.policy.maxFailures = maxFailures
        return service
    }

    @Test func loginReadsTheIndexNotTheLog() throws {
        try withTempDirectory { dir in
            let store = try registered("me@example.com", in: dir)
            try damageLine(store.logPath, line: 0)  // the first user's account line, which no sign-in of mine reads
            let fresh = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
            let started = try service(fresh).login(email: "ME@example.com", password: "password number 1")
            let record = try fresh.signInRecord(email: "me@example.com")
            #expect(started.uid == record?.account?.uid)
            // A policy that counts more failures than the index keeps folds the log, which reports the damage.
            #expect(throws: StoreError.self) { _ = try service(fresh, maxFailures: 6).login(email: "me@example.com", password: "password number 1") }
        }
    }

    @Test func anAccountLineThatDoesNotCheckFallsBackToTheFold() throws {
        try withTempDirectory { dir in
            let store = try registered("me@example.com", in: dir)
            // The line of my account, found by its decoded email (the log stores it encrypted).
            let mine = try #require(try decodedEvents(ofLog: store.logPath).firstIndex {
                if case .accountCreated(let created) = $0.event { created.email == "me@example.com" } else { false }
            })
            try damageLine(store.logPath, line: mine)
            let fresh = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
            #expect(try fresh.signInRecord(email: "me@example.com") == nil)
            #expect(throws: StoreError.self) { _ = try service(fresh).login(email: "me@example.com", password: "password number 1") }
        }
    }

    @Test func fiveWrongPasswordsLockThroughTheIndexAndASessionClearsThem() throws {
        try withTempDirectory { dir in
            let store = try registered("me@example.com", in: dir)
            let sessions = service(store)
            for _ in 0..<4 {
                #expect(throws: AuthError.self) { _ = try sessions.login(email: "me@example.com", password: "wrong") }
            }
            _ = try sessions.login(email: "me@example.com", password: "password number 1")  // clears the four
            #expect(try store.signInRecord(email: "me@example.com")?.recentFailures == [])
            for _ in 0..<5 {
                #expect(throws: AuthError.self) { _ = try sessions.login(email: "me@example.com", password: "wrong") }
            }
            #expect(try store.signInRecord(email: "me@example.com")?.recentFailures.count == 5)
            #expect(throws: AuthError.self) { _ = try sessions.login(email: "me@example.com", password: "password number 1") }
            var reasons: [SignInFailure] = []
            try store.read(from: 1) { event in
                if case .signInFailed(let failed) = event.event { reasons.append(failed.reason) }
                return true
            }
            #expect(reasons == Array(repeating: .wrongPassword, count: 9) + [.locked])
        }
    }

    // MARK: - A damaged index

    /// Overwrites the wrong-password times of every `failures`/`olderFailures` slot of the index at
    /// `path` with `millis` (the table is a cache with no checksum over its slots: a stray write, a
    /// bad page, or a bug elsewhere can leave any bytes there while the header still checks).
    private func overwriteFailureTimes(indexAt path: String, with millis: Int64) throws -> Int {
        var bytes = try readBytes(path), changed = 0
        for slot in stride(from: 4096, to: bytes.count, by: 48) where bytes[slot] == 8 || bytes[slot] == 9 {
            for field in bytes[slot] == 8 ? [24, 32] : [24, 32, 40] {
                withUnsafeBytes(of: millis.littleEndian) { bytes.replaceSubrange((slot + field)..<(slot + field + 8), with: $0) }
            }
            changed += 1
        }
        let fd = open(path, O_WRONLY)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        return changed
    }

    /// Review: a damaged index must make login fold the log (or at worst answer wrongly), never
    /// trap. Wrong-password times near Int64.max pass straight into `SignInPolicy.lockedUntil`,
    /// whose `last.millis - first.millis` and `last.adding(milliseconds: window)` overflow.
    @Test func wildFailureTimesInTheIndexDoNotCrashLogin() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            try #require(try dir.register(email: email, password: "correct horse 1").status == 0)
            for _ in 0..<5 { #expect(try dir.login(email: email, password: "wrong").status == 1) }
            #expect(try overwriteFailureTimes(indexAt: dir.path + "/events.jsonl.index", with: .max) == 2)
            let login = try dir.login(email: email, password: "correct horse 1")
            #expect(login.status < 128, "ledger login died on signal \(login.status - 128): \(login.stderr)")
            // The log is intact; verify names the damaged index.
            #expect(try dir.verifySummary().kinds == ["cache-mismatch"])
        }
    }

    /// A table whose every slot is taken although its count says otherwise (a damaged file): lookups
    /// and inserts end after one round instead of probing forever, the writer drops the table, and
    /// sign-ins and appends go on.
    @Test func aTableWithNoFreeSlotIsDroppedNotProbedForever() throws {
        try withTempDirectory { dir in
            let store = try registered("me@example.com", in: dir)
            var bytes = try readBytes(store.indexPath)
            for slot in stride(from: 4096, to: bytes.count, by: 48) where bytes[slot] == 0 {
                bytes[slot] = 9
                bytes[slot + 8] = UInt8(truncatingIfNeeded: slot)  // a key no lookup asks for
                bytes[slot + 9] = UInt8(truncatingIfNeeded: slot >> 8)
            }
            let fd = open(store.indexPath, O_WRONLY)
            _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
            close(fd)
            let fresh = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
            let started = try service(fresh).login(email: "me@example.com", password: "password number 1")
            #expect(try fresh.readStream(StreamCategory.session.stream(started.sessionId)).count == 1)
            #expect(throws: AuthError.self) { _ = try service(fresh).login(email: "nobody@example.com", password: "x") }
            #expect(try fresh.head().seq == (try store.readAll().count))
        }
    }

    // MARK: - A uid created again with another email

    /// A created with E, then again with F; B created with E and written; A created with E again, then
    /// with F again. E's last account is A, which has moved to F since: by the account fold's rule E
    /// has no live account (B stopped holding it when A took it, a rule break the fold notes), and the
    /// store answers that from what it holds, as the fold does. Only a log written by hand re-creates a
    /// uid; `register` always makes a new one.
    @Test(arguments: [Backend.file, .postgres])
    func anEmailWhoseUidMovedAwayHasNoLiveAccount(backend: Backend) throws {
        try withStores(backend, clock: FixedClock(step: 1)) { make in
            let store = try make(3)
            let a = Fixtures.uuid(601), b = Fixtures.uuid(602), e = "e@example.com", f = "f@example.com"
            let events: [LedgerEvent] = [
                .accountCreated(AccountCreated(uid: a, email: e, passwordHash: "$y$j9T$a1$h")),
                .accountCreated(AccountCreated(uid: a, email: f, passwordHash: "$y$j9T$a2$h")),
                .accountCreated(AccountCreated(uid: b, email: e, passwordHash: "$y$j9T$b1$h")),
                .profileWritten(ProfileWritten(uid: b, email: e, userName: "B", profileImageName: nil, createdAt: FixedClock.start)),
                .accountCreated(AccountCreated(uid: a, email: e, passwordHash: "$y$j9T$a3$h")),
                .accountCreated(AccountCreated(uid: a, email: f, passwordHash: "$y$j9T$a4$h")),
            ]
            for (n, event) in events.enumerated() {
                _ = try store.append([event], to: Fixtures.stream(.registration, 30_000 + n), expected: .noStream)
            }
            let fold = try SessionService(store: FoldingStore(store), signInLocks: SequentialSignInLocks(), clock: FixedClock(), random: SecureRandom(),
                                          hasher: PasswordHasher(cost: 1)).signInRecord(email: e)
            #expect(fold == SignInRecord())
            #expect(try store.signInRecord(email: e) == fold)
            var views = LedgerViews()
            try store.read(from: 1) { views.apply($0); return true }
            #expect(views.users.live(email: e) == nil)
            #expect(views.ruleBreaks.map(\.kind) == [.duplicateLiveAccount])
        }
    }
}
