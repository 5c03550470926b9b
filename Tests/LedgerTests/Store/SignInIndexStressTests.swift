import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignInIndexStressTests

/// Longer random histories than `SignInIndexTests`: enough events to grow
/// the writers' index past its first capacity, accounts created again and deleted, and now and then
/// a writer whose header did not move after its slots changed, so the next writer applies
/// the event again over them. After every few events, every email's record from the index must be
/// what the users and sign-in views folded event by event give.
struct SignInIndexStressTests {
    private static let emails = (0..<10).map { "s\($0)@example.com" }
    private static let uids = (0..<30).map { Fixtures.uuid(700 + $0) }
    private static let policies: [SignInPolicy] = (1...SignInRecord.keptFailures).map { max in
        var policy = SignInPolicy()
        policy.maxFailures = max
        policy.window = max == 2 ? 3_600_000 : 900_000
        return policy
    }

    /// One random event of the kinds a sign-in reads, and its stream.
    private func randomEvent(_ n: Int, _ random: SeededRandom, _ clock: FixedClock) -> (LedgerEvent, String) {
        let u = random.next(Self.uids.count), uid = Self.uids[u]
        // Each uid keeps one email. A uid created again with another email (never done by `register`,
        // which makes a new uid per registration) leaves the fold's answer for the old email to the
        // order of the users view's email table, seeded per process; `anEmailWhoseUidMovedAwayFolds`
        // covers the stores' side of that case (they defer to the fold).
        let email = Self.emails[u % Self.emails.count]
        let registration = Fixtures.stream(.registration, 100_000 + n)
        switch random.next(12) {
        case 0, 1: return (.accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$s\(n)$h\(n)")), registration)
        case 2, 3: return (.profileWritten(ProfileWritten(uid: uid, email: email, userName: "P", profileImageName: nil, createdAt: clock.instant)), registration)
        case 4: return (.accountDeleted(AccountDeleted(uid: uid)), registration)
        case 5, 6, 7, 8:
            let reason = random.pick([SignInFailure.wrongPassword, .wrongPassword, .wrongPassword, .unknownEmail, .locked])
            return (.signInFailed(SignInFailed(email: random.pick(Self.emails), reason: reason)), Fixtures.stream(.signin, 100_000 + n))
        default:
            return (.sessionStarted(SessionStarted(sessionId: Fixtures.uuid(300_000 + n), uid: uid, tokenHash: Fixtures.hex64(n),
                                                   expiresAt: clock.instant.adding(milliseconds: 1))), Fixtures.stream(.session, 100_000 + n))
        }
    }

    /// Puts the coverage of `header` (the last line covered: offsets 48..<144) back over the index at
    /// `path`: its slots moved on, the line it says it covers did not, so the next writer applies the
    /// lines after it again. The slot count and capacity stay the file's own.
    private func restoreCoverage(of header: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { return }
        _ = header[48..<144].withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 48) }
        close(fd)
    }

    @Test func longHistoriesWithGrowthAndReapplication() throws {
        try withTempDirectory { dir in
            let seed: UInt64 = 11, random = SeededRandom(seed: seed), clock = FixedClock()
            var store = FileEventStore(directory: dir, clock: clock, random: SeededRandom(seed: seed + 100))
            var views = Self.policies.map(LedgerViews.folding)
            var lastHash: [String: String] = [:]  // "uid email" -> the hash of its last AccountCreated with that email
            var answered = 0, withAccount = 0, reapplied = 0
            let indexPath = dir + "/events.jsonl.index"
            for n in 0..<3400 {
                if random.oneIn(20) { store = FileEventStore(directory: dir, clock: clock, random: SeededRandom(seed: seed * 7919 + UInt64(n))) }
                clock.instant = clock.instant.adding(milliseconds: random.pick([Int64(1), 1_000, 60_000, 240_000, 900_000]))
                let (event, stream) = randomEvent(n, random, clock)
                let before = random.oneIn(6) ? (try? readBytes(indexPath)) : nil
                let recorded = try store.append([event], to: stream, expected: .noStream)
                if let before, let after = try? readBytes(indexPath), after.count == before.count {
                    restoreCoverage(of: Array(before.prefix(4096)), to: indexPath)
                    reapplied += 1
                }
                if case .accountCreated(let created) = event { lastHash[created.uid + " " + created.email] = created.passwordHash }
                for event in recorded {
                    for i in views.indices { views[i].apply(event) }
                }
                guard n % 3 == 2 else { continue }
                for email in Self.emails {
                    guard let record = try store.signInRecord(email: email) else { continue }
                    answered += 1
                    if record.account != nil { withAccount += 1 }
                    let live = views[0].users.live(email: email).flatMap { $0.status == .active ? $0 : nil }
                    let expected = live.flatMap { row in lastHash[row.uid + " " + email].map { SignInRecord.Account(uid: row.uid, passwordHash: $0) } }
                    #expect(record.account == expected, "event \(n), \(email)")
                    for (policy, view) in zip(Self.policies, views) {
                        #expect(Array(record.recentFailures.suffix(policy.maxFailures)) == view.signIns.row(email: email)?.recentFailures ?? [],
                                "event \(n), \(email), \(policy.maxFailures) failures")
                    }
                }
            }
            #expect(try store.head().seq == 3400)
            #expect(answered > 6000 && withAccount > 500)
            #expect(reapplied > 100)
            #expect(try readBytes(indexPath).count > 4096 + 4096 * 48, "the index grew past its first capacity")
        }
    }
}
