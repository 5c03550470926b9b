import LedgerDomain
import Testing

// MARK: - CompactSessionWalkTests

/// `audit`'s `session-active-after-disable` and the report's "signed in" step walk the compact
/// session records instead of spelling out a row per session: over random histories (accounts
/// created, disabled, enabled and deleted; sessions started and ended; a session id started again;
/// sessions of accounts never created), they find what the plain reading of the rows finds.
struct CompactSessionWalkTests {
    /// A random history of `count` events over a few accounts and sessions, and a time after it.
    private func history(seed: UInt64, count: Int) -> (events: [ViewEvent], end: Timestamp) {
        let random = SeededRandom(seed: seed)
        let uids = (0..<8).map { UUIDBits(high: 0x10, low: UInt64($0)) }
        let sessions = (0..<24).map { UUIDBits(high: 0x20, low: UInt64($0)) }
        var events: [ViewEvent] = []
        var registrationOf: [UUIDBits: UUIDBits] = [:]
        var now: Int64 = 1_000
        for seq in 1...count {
            now += Int64(random.next(5_000))
            let uid = uids[random.next(uids.count)]
            let fact: ViewEvent.Fact
            var category = StreamCategory.account, stream = uid
            switch random.next(11) {
            case 0, 1:
                fact = .accountCreated(uid: uid, email: "user\(random.next(4))@example.com", withImage: false)
                category = .registration; stream = UUIDBits(high: 0x30, low: UInt64(seq))
                registrationOf[uid] = stream
            case 10:
                fact = .profileWritten(uid: uid, userName: "U", profileImage: nil, createdAt: Timestamp(millis: now))
                category = .registration; stream = registrationOf[uid] ?? UUIDBits(high: 0x30, low: UInt64(seq))
            case 2: fact = .accountDisabled(uid: uid, reason: "r")
            case 3: fact = .accountEnabled(uid: uid)
            case 4: fact = .accountDeleted(uid: uid, reason: .compensation)
            case 5, 6, 7:
                let session = sessions[random.next(sessions.count)]
                fact = .sessionStarted(session: session, uid: uid, expiresAt: Timestamp(millis: now + Int64(random.next(60_000))))
                category = .session; stream = session
            default:
                let session = sessions[random.next(sessions.count)]
                fact = .sessionEnded(session: session)
                category = .session; stream = session
            }
            events.append(ViewEvent(seq: seq, at: Timestamp(millis: now), category: category, stream: stream, fact: fact))
        }
        return (events, Timestamp(millis: now + Int64(random.next(30_000))))
    }

    @Test func theCompactWalksFindWhatTheRowsShow() {
        var found = (breaks: 0, signedIn: 0)
        for seed in 1...300 as ClosedRange<UInt64> {
            let (events, end) = history(seed: seed, count: 20 + Int(seed % 60))
            var views = LedgerViews()
            for event in events { views.apply(event, hash: .zero) }

            // The rows, read plainly: an active session whose account is disabled or deleted.
            let expected = Set(views.sessions.rows.compactMap { session -> UUIDBits? in
                guard session.status(at: end) == .active, let status = views.users.row(uid: session.uid)?.status,
                      status == .disabled || status == .deleted else { return nil }
                return UUIDBits(uuid: session.uid)
            })
            let breaks = views.ruleBreaksAfterwards(at: end).filter { $0.kind == .sessionActiveAfterDisable }
            #expect(Set(breaks.map(\.uid)) == expected, "seed \(seed)")
            #expect(breaks.count == views.sessions.rows.filter { row in
                row.status(at: end) == .active && expected.contains(UUIDBits(uuid: row.uid)!)
            }.count, "seed \(seed): one per active session")
            found.breaks += breaks.count

            // The report's "signed in" step: completed profiles whose account has a session.
            let withSession = Set(views.sessions.rows.map(\.uid))
            let plain = views.registrations.rows.filter { row in
                row.uid != nil && (row.imageName != nil || !row.withImage) && row.profileWritten && withSession.contains(row.uid ?? "")
            }.count
            let model = ReportModel(views: views, asOf: end, verifyOK: true, generatedAt: end)
            #expect(model.funnel.first { $0.key == "signed-in" }?.count == plain, "seed \(seed)")
            found.signedIn += plain
        }
        #expect(found.breaks > 20 && found.signedIn > 20, "the histories reach both")
    }
}
