import LedgerDomain
import LedgerKit
import Synchronization
import Testing

// MARK: - ViewsOpenerTests

/// A fold of some views that opens only the personal members those views read (`ViewsOpener`,
/// `LedgerViews.Selection.readers`) gives the same views as one that opens every member: random
/// data version 2 histories (accounts created, written, deleted, disabled, moved to another email,
/// given a new password; refused sign-ins that lock an email; failed registrations; an erasure),
/// every line read in place, folded for each selection a command asks.
struct ViewsOpenerTests {
    private static let emails = (0..<4).map { "person\($0)@example.com" }
    private static let uids = (0..<6).map { Fixtures.uuid(700 + $0) }
    private static let selections: [LedgerViews.Selection] = [
        .all, .users, [.users, .sessions, .images, .registrations], .signIns, .accountChanges, .registrations, .sessions,
    ]

    /// Appends one random event, after moving the clock on by a random step.
    private func appendRandomEvent(_ n: Int, to store: FileEventStore, clock: FixedClock, random: SeededRandom) {
        clock.instant = clock.instant.adding(milliseconds: random.pick([Int64(1), 1_000, 60_000, 240_000, 3_600_000]))
        let u = random.next(Self.uids.count), uid = Self.uids[u]
        let email = Self.emails[u % Self.emails.count]
        let registration = Fixtures.stream(.registration, 30_000 + n), account = StreamCategory.account.stream(uid)
        let (event, stream): (LedgerEvent, String)
        switch random.next(14) {
        case 0, 1: (event, stream) = (.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$salt\(n)$hash\(n)")), registration)
        case 2, 3:
            event = .profileWritten(ProfileWritten(uid: uid, email: email, userName: "Person \(n)", profileImageName: nil, createdAt: clock.instant))
            stream = registration
        case 4: (event, stream) = (.accountDeleted(AccountDeleted(uid: uid)), registration)
        case 5, 6, 7:
            let reason = random.pick([SignInFailure.wrongPassword, .wrongPassword, .wrongPassword, .unknownEmail, .locked])
            (event, stream) = (.signInFailed(SignInFailed(email: random.pick(Self.emails), reason: reason)), Fixtures.stream(.signin, 30_000 + n))
        case 8:
            let failed = random.next(2) == 0
                ? Failed(step: .validation, reason: "invalid-email", message: "email \(n) is not valid")
                : Failed(step: .profile, reason: "io-error", message: "disk full \(n)", email: email, uid: uid)
            (event, stream) = (.failed(failed), registration)
        case 9: (event, stream) = (.passwordChanged(PasswordChanged(uid: uid, passwordHash: "$y$j9T$new\(n)$h", reason: random.pick([PasswordChangeReason.change, .reset]))), account)
        case 10: (event, stream) = (.emailChanged(EmailChanged(uid: uid, email: random.pick(Self.emails), previousEmail: email)), account)
        case 11: (event, stream) = (random.next(2) == 0 ? .accountDisabled(AccountDisabled(uid: uid, reason: "case \(n)")) : .accountEnabled(AccountEnabled(uid: uid)), account)
        default:
            event = .sessionStarted(SessionStarted(sessionId: Fixtures.uuid(40_000 + n), uid: uid, tokenHash: Fixtures.hex64(n),
                                                   expiresAt: clock.instant.adding(milliseconds: 3_600_000)))
            stream = Fixtures.stream(.session, 30_000 + n)
        }
        // After the erasure, the store refuses the erased account's new personal data: skipped.
        _ = try? store.append([event], to: stream, expected: stream == account ? .any : .noStream)
    }

    /// `lines` read in place with `opener` and folded into views narrowed to `selection`; nil when a
    /// line is not read in place.
    private func fold(_ lines: [[UInt8]], _ selection: LedgerViews.Selection, opener: any PersonalDataOpener) -> LedgerViews? {
        var views = LedgerViews()
        views.narrow(to: selection)
        for line in lines {
            guard let read = line.withUnsafeBufferPointer({ LineCodec.readInPlace($0, opener: opener) }) else { return nil }
            views.apply(read.event, hash: read.hash)
        }
        return views
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func foldingWithTheMembersTheViewsReadGivesTheViewsOfEveryMemberOpened(seed: UInt64) throws {
        try withTempDirectory { dir in
            let clock = FixedClock(step: 1)
            let store = FileEventStore(directory: dir, clock: clock, random: SeededRandom(seed: seed))
            let random = SeededRandom(seed: seed &+ 100)
            for n in 0..<220 {
                appendRandomEvent(n, to: store, clock: clock, random: random)
                // An erased account partway: its members read as erased on both sides.
                if n == 150 { try store.destroyKeys(of: [.account(UUIDBits(uuid: Self.uids[Int(seed) % Self.uids.count])!)]) }
            }
            let lines = splitLines(try readBytes(store.logPath)).map { Array($0.dropLast()) }
            let keys = KeyRing(directory: dir)
            for selection in Self.selections {
                let every = fold(lines, selection, opener: keys)
                let read = fold(lines, selection, opener: ViewsOpener(base: keys, selection: selection))
                #expect(every != nil && read != nil, "a line not read in place")
                #expect(every == read, "selection \(selection.rawValue), seed \(seed)")
                #expect(every?.users.rows.isEmpty == false || !selection.contains(.users))
            }
        }
    }

    /// The members no view folded reads are left sealed: the opener is not asked for them.
    @Test func membersNoFoldedViewReadsAreNotOpened() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            let uid = Self.uids[0]
            _ = try store.append([.accountCreated(AccountCreated(uid: uid, email: "a@example.com", passwordHash: "$y$j9T$salt$hash")),
                                  .profileWritten(ProfileWritten(uid: uid, email: "a@example.com", userName: "A", profileImageName: nil,
                                                                 createdAt: Timestamp(millis: 5)))],
                                 to: Fixtures.stream(.registration, 1), expected: .noStream)
            _ = try store.append([.signInFailed(SignInFailed(email: "a@example.com", reason: .wrongPassword))],
                                 to: Fixtures.stream(.signin, 2), expected: .noStream)
            let counter = CountingOpener(base: KeyRing(directory: dir))
            let lines = splitLines(try readBytes(store.logPath)).map { Array($0.dropLast()) }
            for (selection, expected) in [(LedgerViews.Selection.users, ["AccountCreated.email", "ProfileWritten.userName"]),
                                          (.signIns, ["AccountCreated.email", "ProfileWritten.userName", "SignInFailed.email"])] {
                counter.names.withLock { $0 = [] }
                _ = fold(lines, selection, opener: ViewsOpener(base: counter, selection: selection))
                #expect(counter.names.withLock { $0 } == expected)
            }
        }
    }
}

// MARK: - CountingOpener

/// Records the members it is asked to open, then opens them with `base`.
private final class CountingOpener: PersonalDataOpener {
    let base: any PersonalDataOpener
    let names = Mutex<[String]>([])
    init(base: any PersonalDataOpener) { self.base = base }
    func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        names.withLock { $0.append("\(type.rawValue).\(name)") }
        return base.open(member, eventID: eventID, type: type, name: name)
    }
}
