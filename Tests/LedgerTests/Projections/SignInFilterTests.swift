@testable import LedgerDomain
import Testing

// MARK: - SignInViewDifferentialTests

/// The sign-in view folds exactly as the plain rule does, on random logs with reused emails, accounts
/// created again under another email, sessions of unknown users, many emails, and emails that are
/// one text in two Unicode normal forms (two emails: the view keys them by their bytes).
struct SignInViewDifferentialTests {
    /// The rule without any filter: failures per email (its bytes), reset by a session of an account
    /// created with it and by the creation of an account with it.
    private struct Reference {
        var failures: [[UInt8]: Int] = [:]
        var recent: [[UInt8]: [Timestamp]] = [:]
        var emailOf: [UUIDBits: [UInt8]] = [:]

        mutating func apply(_ event: ViewEvent) {
            switch event.fact {
            case .accountCreated(let uid, let text, _):
                let email = Array(text.utf8)
                emailOf[uid] = email
                if recent[email] != nil { recent[email] = [] }
            case .signInFailed(let text, let reason):
                let email = Array(text.utf8)
                failures[email, default: 0] += 1
                if reason == .wrongPassword { recent[email, default: []] = Array((recent[email, default: []] + [event.at]).suffix(5)) }
            case .sessionStarted(_, let uid, _):
                if let email = emailOf[uid], recent[email] != nil { recent[email] = [] }
            default: break
            }
        }
    }

    @Test(arguments: [(UInt64(1), 300, false), (UInt64(2), 20_000, false), (UInt64(3), 300, true)])
    func theFilteredFoldIsThePlainFold(_ seed: UInt64, _ emails: Int, _ twins: Bool) {
        let random = SeededRandom(seed: seed)
        var views = LedgerViews(), reference = Reference()
        var uids: [UUIDBits] = []
        for seq in 1...60_000 {
            let at = Timestamp(millis: 1_800_000_000_000 + Int64(seq) * 1000)
            let n = random.next(emails)
            let email = !twins ? "u\(n)@example.com" : random.next(2) == 0 ? "caf\u{E9}\(n)@example.com" : "cafe\u{301}\(n)@example.com"
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
            #expect(row.failures == reference.failures[Array(row.email.utf8)], "\(row.email)")
            #expect(row.recentFailures == (reference.recent[Array(row.email.utf8)] ?? []), "\(row.email)")
        }
        if twins { #expect(Set(views.signIns.rows.map(\.email)).count < views.signIns.rows.count, "twins that compare equal as text are rows apart") }
        #expect(views.signIns.rows.contains { !$0.recentFailures.isEmpty })
        #expect(views.signIns.rows.contains { $0.failures > 0 && $0.recentFailures.isEmpty }, "some resets happened")
    }
}
