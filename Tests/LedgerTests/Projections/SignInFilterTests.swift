@testable import LedgerDomain
import Testing

// MARK: - SignInViewDifferentialTests

/// The sign-in view folds exactly as the plain rule does, on random logs with reused emails, accounts
/// created again under another email, sessions of unknown users, and many emails.
struct SignInViewDifferentialTests {
    /// The rule without any filter: failures per email, reset by a session of an account created with
    /// it and by the creation of an account with it.
    private struct Reference {
        var failures: [String: Int] = [:]
        var recent: [String: [Timestamp]] = [:]
        var emailOf: [UUIDBits: String] = [:]

        mutating func apply(_ event: ViewEvent) {
            switch event.fact {
            case .accountCreated(let uid, let email, _):
                emailOf[uid] = email
                if recent[email] != nil { recent[email] = [] }
            case .signInFailed(let email, let reason):
                failures[email, default: 0] += 1
                if reason == .wrongPassword { recent[email, default: []] = Array((recent[email, default: []] + [event.at]).suffix(5)) }
            case .sessionStarted(_, let uid, _):
                if let email = emailOf[uid], recent[email] != nil { recent[email] = [] }
            default: break
            }
        }
    }

    @Test(arguments: [(UInt64(1), 300), (UInt64(2), 20_000)])
    func theFilteredFoldIsThePlainFold(_ seed: UInt64, _ emails: Int) {
        let random = SeededRandom(seed: seed)
        var views = LedgerViews(), reference = Reference()
        var uids: [UUIDBits] = []
        for seq in 1...60_000 {
            let at = Timestamp(millis: 1_800_000_000_000 + Int64(seq) * 1000)
            let email = "u\(random.next(emails))@example.com"
            let fact: ViewEvent.Fact
            switch random.next(10) {
            case 0, 1:
                // A new account, or (one in ten) an existing uid created again, maybe under another email.
                let uid = uids.isEmpty || random.next(10) > 0 ? UUIDBits(high: 7, low: UInt64(seq)) : uids[random.next(uids.count)]
                uids.append(uid)
                fact = .accountCreated(uid: uid, email: email, withImage: false)
            case 2, 3, 4, 5:
                fact = .signInFailed(email: email, reason: random.next(4) == 0 ? .unknownEmail : .wrongPassword)
            default:
                // Mostly known users; sometimes a uid no account has.
                let uid = uids.isEmpty || random.next(20) == 0 ? UUIDBits(high: 9, low: UInt64(seq)) : uids[random.next(uids.count)]
                fact = .sessionStarted(session: UUIDBits(high: 8, low: UInt64(seq)), uid: uid, expiresAt: at.adding(milliseconds: 60_000))
            }
            let event = ViewEvent(seq: seq, at: at, category: .signin, stream: UUIDBits(high: 6, low: UInt64(seq)), fact: fact)
            views.apply(event, hash: .zero)
            reference.apply(event)
        }
        #expect(views.signIns.rows.count == reference.failures.count)
        for row in views.signIns.rows {
            #expect(row.failures == reference.failures[row.email], "\(row.email)")
            #expect(row.recentFailures == (reference.recent[row.email] ?? []), "\(row.email)")
        }
        #expect(views.signIns.rows.contains { !$0.recentFailures.isEmpty })
        #expect(views.signIns.rows.contains { $0.failures > 0 && $0.recentFailures.isEmpty }, "some resets happened")
    }
}
