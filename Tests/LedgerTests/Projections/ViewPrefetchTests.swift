@testable import LedgerDomain
import Testing

// MARK: - ViewPrefetchTests

/// `LedgerViews.prefetch`, the hints a read gives the processor for a line a few ahead: one
/// address per index the fold of that line will look in first (the views selected only), none
/// for an index still empty, and the views left as they were; a fold given the hints ends where
/// the plain fold ends.
struct ViewPrefetchTests {
    private let ann = UUIDBits(high: 1, low: 71), registration = UUIDBits(high: 2, low: 72), session = UUIDBits(high: 3, low: 73)

    private func event(_ n: Int, _ category: StreamCategory, _ stream: UUIDBits, _ fact: ViewEvent.Fact) -> ViewEvent {
        ViewEvent(seq: n, at: Timestamp(millis: Int64(n) * 60_000), category: category, stream: stream, fact: fact)
    }

    private var life: [ViewEvent] {
        [event(1, .registration, registration, .accountCreated(uid: ann, email: "ann@example.com", withImage: nil)),
         event(2, .registration, registration, .profileWritten(uid: ann, userName: "Ann", profileImage: nil, createdAt: Timestamp(millis: 0))),
         event(3, .session, session, .sessionStarted(session: session, uid: ann, expiresAt: Timestamp(millis: 9_000_000))),
         event(4, .session, session, .sessionEnded(session: session)),
         event(5, .signin, UUIDBits(high: 4, low: 74), .signInFailed(email: "eve@example.com", reason: .unknownEmail))]
    }

    /// The hints for `event` given `views`.
    private func hints(_ views: LedgerViews, _ event: ViewEvent) -> [UnsafeRawPointer] {
        var out: [UnsafeRawPointer] = []
        withUnsafePointer(to: event) { views.prefetch(for: $0) { out.append($0) } }
        return out
    }

    @Test func oneHintPerIndexTheFoldLooksInFirst() {
        var views = LedgerViews()
        for e in life { views.apply(e, hash: Digest32(bytes: [UInt8](repeating: UInt8(e.seq), count: 32).withUnsafeBytes { $0 })) }
        let before = views
        let (created, written, started, ended, refused) = (life[0], life[1], life[2], life[3], life[4])
        #expect(hints(views, created).count == 3)  // its registration, its account's uid and email
        #expect(hints(views, written).count == 2)  // its registration, its account
        #expect(hints(views, started).count == 3)  // its account, the session, the account's last session
        #expect(hints(views, ended).count == 1)  // the session
        #expect(hints(views, refused).count == 1)  // the email's last account
        #expect(Set(hints(views, started)).count == 3)
        #expect(views == before)

        var usersOnly = views
        usersOnly.narrow(to: [.users])
        #expect(hints(usersOnly, started).count == 1)
        #expect(hints(usersOnly, created).count == 2)
        #expect(hints(usersOnly, ended).isEmpty)
        #expect(hints(LedgerViews(), started).isEmpty)  // nothing indexed yet
    }

    /// The rows the fold of an event will read (`.rows`), once the slots that lead to them were
    /// hinted: a held key's row (the user's record, the session's, the user's last session),
    /// nothing for a key no row holds, and the views left as they were.
    @Test func theRowHintsNameTheRowsTheFoldReads() {
        var views = LedgerViews()
        for e in life { views.apply(e, hash: Digest32(bytes: [UInt8](repeating: UInt8(e.seq), count: 32).withUnsafeBytes { $0 })) }
        let before = views
        func rowHints(_ views: LedgerViews, _ event: ViewEvent) -> [UnsafeRawPointer] {
            var out: [UnsafeRawPointer] = []
            withUnsafePointer(to: event) { views.prefetch(for: $0, stage: .rows) { out.append($0) } }
            return out
        }
        var userRecord: UnsafeRawPointer?, sessionRecord: UnsafeRawPointer?, registrationRow: UnsafeRawPointer?
        views.users.records.prefetch(0) { userRecord = $0 }
        views.sessions.records.prefetch(0) { sessionRecord = $0 }
        views.registrations.prefetch(stream: registration, .rows) { registrationRow = $0 }
        #expect(userRecord != nil && sessionRecord != nil && registrationRow != nil)
        let (written, started, ended) = (life[1], life[2], life[3])
        #expect(rowHints(views, written) == [registrationRow, userRecord].compactMap { $0 })
        // The account; the session (its id started again: the row it would replace), the account's last session.
        #expect(rowHints(views, started) == [userRecord, sessionRecord, sessionRecord].compactMap { $0 })
        #expect(rowHints(views, ended) == [sessionRecord].compactMap { $0 })
        let stranger = UUIDBits(high: 9, low: 99)
        #expect(rowHints(views, event(6, .session, stranger, .sessionEnded(session: stranger))).isEmpty)
        var beyond: UnsafeRawPointer?
        views.users.records.prefetch(1) { beyond = $0 }
        #expect(beyond == nil)  // no record there
        #expect(rowHints(LedgerViews(), started).isEmpty)
        #expect(views == before)
    }

    /// Over random histories (few ids, so keys come back; every event kind the hints look at), a
    /// fold given both hints as a read gives them (the slots of the line eight ahead, the rows of
    /// the line four ahead) ends where the plain fold ends.
    @Test(arguments: 0..<20) func hintedFoldsOfRandomHistoriesEndWhereThePlainFoldEnds(seed: UInt64) {
        let random = SeededRandom(seed: seed)
        func id(_ high: UInt64, _ bound: Int) -> UUIDBits { UUIDBits(high: high, low: UInt64(random.next(bound))) }
        let emails = ["ann@example.com", "bob@example.com", "carol-with-a-longer-address@example.com"]
        var events: [ViewEvent] = []
        for n in 1...600 {
            let uid = id(1, 40), session = id(3, 60), registration = id(2, 50)
            let (category, stream, fact): (StreamCategory, UUIDBits, ViewEvent.Fact) = switch random.next(7) {
            case 0: (.registration, registration, .accountCreated(uid: uid, email: emails[random.next(emails.count)], withImage: nil))
            case 1: (.registration, registration, .profileWritten(uid: uid, userName: "U", profileImage: nil, createdAt: Timestamp(millis: 1)))
            case 2: (.session, session, .sessionStarted(session: session, uid: uid, expiresAt: Timestamp(millis: Int64(n) * 90_000)))
            case 3: (.session, session, .sessionEnded(session: session))
            case 4: (.account, uid, .accountDeleted(uid: uid))
            case 5: (.registration, registration, .imageStored(uid: uid, image: id(4, 30), contentType: .png, bytes: 1, sha256: .zero))
            default: (.signin, id(5, 10), .signInFailed(email: emails[random.next(emails.count)], reason: .unknownEmail))
            }
            events.append(ViewEvent(seq: n, at: Timestamp(millis: Int64(n) * 60_000), category: category, stream: stream, fact: fact))
        }
        var plain = LedgerViews(), hinted = LedgerViews()
        var hints = 0
        events.withUnsafeBufferPointer { all in
            for i in all.indices {
                let hash = Digest32(bytes: [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 32).withUnsafeBytes { $0 })
                plain.apply(all[i], hash: hash)
                let ahead = i + 8 < all.count ? all.baseAddress! + i + 8 : nil, near = i + 4 < all.count ? all.baseAddress! + i + 4 : nil
                hinted.apply(at: all.baseAddress! + i, hash: hash, prefetching: ahead, rowsOf: near) { _ in hints += 1 }
            }
        }
        #expect(hinted == plain)
        #expect(hinted.users.rows == plain.users.rows && hinted.sessions.rows == plain.sessions.rows)
        #expect(hints > events.count, "both kinds of hint were given")
    }

    @Test func aFoldGivenTheHintsEndsWhereThePlainFoldEnds() {
        var plain = LedgerViews(), hinted = LedgerViews()
        var hints = 0
        let events = life
        for (i, e) in events.enumerated() {
            let hash = Digest32(bytes: [UInt8](repeating: UInt8(e.seq), count: 32).withUnsafeBytes { $0 })
            plain.apply(e, hash: hash)
            let ahead = events[min(i + 1, events.count - 1)]
            withUnsafePointer(to: e) { at in
                withUnsafePointer(to: ahead) { ahead in hinted.apply(at: at, hash: hash, prefetching: ahead, rowsOf: ahead) { _ in hints += 1 } }
            }
        }
        #expect(hinted == plain)
        #expect(hints > 0)
    }
}
