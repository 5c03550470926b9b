@testable import LedgerDomain
import Testing

// MARK: - UserViewDifferentialTests

/// The users view (rows in a `TextArena`, emails found by their bytes) answers exactly as a plain
/// fold keyed by the emails' UTF-8 bytes, on random histories whose emails repeat, differ only in
/// Unicode normal form or ASCII case, or are long, before and after a checkpoint round trip.
@Suite struct UserViewDifferentialTests {
    /// Six seeds of 2,000 events, compared at a third, two thirds and the end, and through a checkpoint.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func theCompactViewAnswersAsThePlainFold(seed: UInt64) throws {
        let events = UserHistory.events(seed: seed, count: 2_000)
        // Compared a few times along the way, not only at the end: a wrong answer may heal later.
        let looks: Set<Int> = [events.count / 3, 2 * events.count / 3, events.count]
        var views = LedgerViews(), plain = PlainUsers()
        var twinsLiveTogether = false
        // What the first look that found a difference found (later looks would mostly repeat it).
        var found: [String] = []
        for (n, event) in events.enumerated() {
            // The whole views, as `AccountService` reads them, not the users view alone.
            views.apply(event, hash: Digest32(a: UInt64(event.seq), b: seed, c: 0, d: 0))
            plain.apply(event)
            guard found.isEmpty, looks.contains(n + 1) else { continue }
            let (got, want) = (views.ruleBreaks, plain.ruleBreaks)
            let broken = (0..<max(got.count, want.count)).first { $0 >= got.count || $0 >= want.count || got[$0] != want[$0] }.map { i in
                "rule break \(i) is \(got.dropFirst(i).first.map { "\($0)" } ?? "none") in the views, \(want.dropFirst(i).first.map { "\($0)" } ?? "none") in the plain fold"
            }
            let restored = try Fixtures.checkpointRoundTrip(views).views.users
            found = (UserHistory.differences(views.users, plain) + [broken].compactMap { $0 } + views.users.invariantViolations().prefix(3)
                     + UserHistory.differences(restored, plain).map { "through a checkpoint: \($0)" }).map { "seed \(seed), after \(n + 1) events: \($0)" }
            twinsLiveTogether = twinsLiveTogether || UserHistory.twins.contains { spellings in
                spellings.filter { plain.live(email: $0) != nil }.count >= 2
            }
        }
        for issue in found { Issue.record(Comment(rawValue: issue)) }
        // The history reached what the test is about.
        #expect(twinsLiveTogether, "seed \(seed): two spellings of one email live at once")
        #expect(plain.rows.contains { $0.email.isEmpty }, "seed \(seed): an erased account")
        #expect(plain.ruleBreaks.contains { $0.kind == .duplicateLiveAccount }, "seed \(seed): an email taken twice")
        #expect(views.users.texts.byteCount > 3 << 18, "seed \(seed): texts for more than three arena chunks")
    }

    /// The smallest histories the random ones failed on: two spellings of one email are two emails
    /// (one moving away leaves the other's live account, and a checkpoint changes nothing), and an
    /// `EmailVerified` of the other spelling verifies nothing.
    /// An account that moves away from an email and back, after another account took the email
    /// and was deleted keeping its data, leaves two entries for the email in the view's index; the
    /// email's last account is the one that moved back, whichever entry a lookup meets first, also
    /// after the index grew (which re-places entries and may reverse their order) many times. With
    /// hundreds of such emails, some entries wrap around the table's end whatever the hash seed.
    @Test func anAccountThatMovesBackIsTheEmailsLastAccountAfterTheIndexGrows() throws {
        var views = LedgerViews()
        var seq = 0
        func apply(_ category: StreamCategory, _ stream: UUIDBits, _ fact: ViewEvent.Fact) {
            seq += 1
            views.apply(ViewEvent(seq: seq, at: Timestamp(millis: Int64(seq)), category: category, stream: stream, fact: fact), hash: .zero)
        }
        func create(_ uid: UUIDBits, _ email: String) {
            apply(.registration, UUIDBits(high: 90, low: uid.low), .accountCreated(uid: uid, email: email, withImage: false))
            apply(.registration, UUIDBits(high: 90, low: uid.low), .profileWritten(uid: uid, userName: "U", profileImage: nil, createdAt: Timestamp(millis: 0)))
        }
        let moved = (0..<600).map { (back: UUIDBits(high: 1, low: UInt64($0)), gone: UUIDBits(high: 2, low: UInt64($0)), email: "x\($0)@example.com") }
        for (back, gone, email) in moved {
            create(back, email)
            apply(.account, back, .emailChanged(uid: back, email: "away\(back.low)@example.com", previousEmail: email))
            create(gone, email)
            apply(.account, gone, .accountDeleted(uid: gone, reason: .operator, keepsPersonalData: true))
            apply(.account, back, .emailChanged(uid: back, email: email, previousEmail: "away\(back.low)@example.com"))
        }
        for n in 0..<20_000 { create(UUIDBits(high: 3, low: UInt64(n)), "other\(n)@example.com") }  // the index grows
        let wrong = moved.filter { views.users.live(email: $0.email)?.uid != $0.back.uuidString || views.users.row(uidOrEmail: $0.email)?.uid != $0.back.uuidString }
        #expect(wrong.isEmpty, "\(wrong.count) of \(moved.count) emails answer another account, e.g. \(wrong.first.map { views.users.row(uidOrEmail: $0.email).map { "\($0)" } ?? "none" } ?? "")")
        #expect(views.ruleBreaks.isEmpty, "\(views.ruleBreaks.prefix(3))")
        let restored = try Fixtures.checkpointRoundTrip(views).views.users
        #expect(moved.allSatisfy { restored.live(email: $0.email)?.uid == $0.back.uuidString }, "through a checkpoint")
    }

    @Test func twoSpellingsOfAnEmailAreTwoEmails() throws {
        let (composed, decomposed) = ("caf\u{E9}@example.com", "cafe\u{301}@example.com")
        let (a, b, c, d) = (UUIDBits(high: 0xB, low: 1), UUIDBits(high: 0xB, low: 2), UUIDBits(high: 0xB, low: 3), UUIDBits(high: 0xB, low: 4))
        /// `views` with `facts` folded onto it, one event each.
        func fold(_ facts: [ViewEvent.Fact], onto views: LedgerViews = LedgerViews()) -> LedgerViews {
            var views = views
            for fact in facts {
                let seq = views.events + 1
                views.apply(ViewEvent(seq: seq, at: Timestamp(millis: 1_800_000_000_000 + Int64(seq)), category: .registration,
                                      stream: UUIDBits(high: 0xE, low: UInt64(seq)), fact: fact), hash: .zero)
            }
            return views
        }
        // a (composed) moves away; b (decomposed) still holds its email.
        let moved = fold([.accountCreated(uid: a, email: composed, withImage: false), .accountCreated(uid: b, email: decomposed, withImage: false),
                          .emailChanged(uid: a, email: "other@example.com", previousEmail: composed)])
        #expect(moved.users.live(email: decomposed)?.uid == b.uuidString, "b is the live account of its spelling")
        // b moves away after a took the same spelling; c creates the other one: a's email is still indexed,
        // and a checkpoint then folds the next creation as the log does.
        let crossed = fold([.accountCreated(uid: a, email: decomposed, withImage: false), .accountCreated(uid: b, email: decomposed, withImage: false),
                            .emailChanged(uid: b, email: "other@example.com", previousEmail: decomposed),
                            .accountCreated(uid: c, email: composed, withImage: false)])
        #expect(crossed.invariantViolations().isEmpty)
        let next: [ViewEvent.Fact] = [.accountCreated(uid: d, email: decomposed, withImage: false)]
        #expect(fold(next, onto: try Fixtures.checkpointRoundTrip(crossed).views).ruleBreaks == fold(next, onto: crossed).ruleBreaks)
        // An `EmailVerified` of the other spelling of the email held.
        let verified = fold([.accountCreated(uid: a, email: composed, withImage: false), .emailVerified(uid: a, email: decomposed)])
        #expect(verified.users.row(uid: a.uuidString)?.emailVerified == false)
    }
}

// MARK: - PlainUsers

/// The users view's rules as a plain fold: dictionaries keyed by uid and by an email's UTF-8 bytes.
/// `AccountFold` moves the accounts' status and email (the domain's rules, not restated here); the
/// details (name, image, time, verified) are set as the users view documents them.
struct PlainUsers: AccountFoldState {
    /// One account as the plain fold keeps it.
    struct Account {
        var status: AccountStatus
        var email: [UInt8]
        var registration: UUIDBits
        var userName: String?
        var profileImage: UUIDBits?
        var createdAt: Timestamp?
        var emailVerified = false
    }

    /// Every account created, by uid.
    private(set) var accounts: [UUIDBits: Account] = [:]
    /// Uids in the order of their first creation (the view's row order).
    private(set) var created: [UUIDBits] = []
    /// Each email's last account (created with it or moved to it).
    private var last: [[UInt8]: UUIDBits] = [:]
    /// The rules the history broke, in order.
    private(set) var ruleBreaks: [RuleBreak] = []

    /// Folds `event`: the account fold, then the users view's details.
    mutating func apply(_ event: ViewEvent) {
        if let broken = AccountFold.evolve(&self, event, policy: SignInPolicy()) { ruleBreaks.append(broken) }
        switch event.fact {
        case .profileWritten(let uid, let userName, let profileImage, let createdAt):
            guard accounts[uid] != nil else { return }
            accounts[uid]!.userName = userName
            accounts[uid]!.profileImage = profileImage
            accounts[uid]!.createdAt = createdAt
        case .emailVerified(let uid, let email):
            // Verified only for the very bytes the account holds (the view finds emails by their bytes).
            if accounts[uid]?.email == Array(email.utf8) { accounts[uid]!.emailVerified = true }
        case .emailChanged(let uid, _, _):
            accounts[uid]?.emailVerified = false
        default:
            return
        }
    }

    // MARK: Reads

    /// The row of `uid`, spelled as the view spells rows.
    func row(_ uid: UUIDBits) -> UserRow? {
        accounts[uid].map { a in
            UserRow(uid: uid.uuidString, email: String(decoding: a.email, as: UTF8.self), userName: a.userName,
                    profileImageName: a.profileImage?.uuidString, createdAt: a.createdAt, status: a.status,
                    registration: a.registration.uuidString, emailVerified: a.emailVerified)
        }
    }

    /// Every row, in first-creation order.
    var rows: [UserRow] { created.compactMap(row) }

    /// The live account of exactly the bytes of `email` (`AccountFold.liveAccount`).
    func live(email: String) -> UserRow? { AccountFold.liveAccount(of: emailKey(email), in: self).flatMap(row) }

    /// The account a command names by `key`: that uid, else (the key normalized as a typed email)
    /// the email's live account, else the latest created of the accounts holding its bytes; a blank key names none.
    func row(uidOrEmail key: String) -> UserRow? {
        if let uid = UUIDBits(uuid: Identifiers.typed(key.trimmingSpaces)), let row = row(uid) { return row }
        let email = EmailRule.normalized(key)
        guard !ErasedText.isErased(email) else { return nil }
        let bytes = Array(email.utf8)
        return live(email: email) ?? created.last { accounts[$0]?.email == bytes }.flatMap(row)
    }

    // MARK: AccountFoldState

    /// An email's key: its UTF-8 bytes, so two normal forms are two emails.
    func emailKey(_ email: String) -> [UInt8] { Array(email.utf8) }
    /// The account `uid`'s status and email.
    func account(_ uid: UUIDBits) -> AccountFacts<[UInt8]>? { accounts[uid].map { AccountFacts(status: $0.status, email: $0.email) } }
    /// The account last created with `email` or moved to it.
    func lastAccount(of email: [UInt8]) -> UUIDBits? { last[email] }
    /// A new account (or one created again), pending, with nothing but its email and registration.
    mutating func recordCreation(of uid: UUIDBits, email: [UInt8], status: AccountStatus, by event: ViewEvent) {
        if accounts[uid] == nil { created.append(uid) }
        accounts[uid] = Account(status: status, email: email, registration: event.stream)
        last[email] = uid
    }
    /// Sets the status of `uid`.
    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { accounts[uid]?.status = status }
    /// No password hash is kept.
    mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) {}
    /// Moves `uid` to `email`, whose last account it becomes.
    mutating func recordEmailChange(of uid: UUIDBits, to email: [UInt8], by event: ViewEvent) {
        accounts[uid]?.email = email
        last[email] = uid
    }
    // Like the users view, it keeps no sign-in failures (the histories it is compared on have none).
    /// No failures are kept.
    var keepsFailures: Bool { false }
    /// No failures are kept.
    func mayHaveFailures(_ email: [UInt8]) -> Bool { false }
    /// No failures are kept.
    func recentFailures(of email: [UInt8]) -> [Timestamp] { [] }
    /// No failures are kept.
    mutating func appendFailure(of email: [UInt8], at time: Timestamp, by event: ViewEvent) {}
    /// No failures are kept.
    mutating func clearFailures(of email: [UInt8]) {}
}

// MARK: - UserHistory

/// Seeded random histories of account events, and the comparison of a users view with `PlainUsers`.
enum UserHistory {
    /// Texts spelled in more than one normal form: equal as Swift strings, distinct as bytes.
    static let twins: [[String]] = (0..<5).map { ["caf\u{E9}\($0)@example.com", "cafe\u{301}\($0)@example.com"] }
        + [["\u{212B}ngel@example.com", "\u{C5}ngel@example.com", "A\u{30A}ngel@example.com"]]  // Å: the Ångström sign, NFC, NFD

    /// The emails histories draw from: plain, normal-form twins, ASCII case and space variants, long ones.
    static let emails: [String] = (0..<12).map { "user\($0)@example.com" } + twins.flatMap { $0 }
        + ["Mixed@Example.com", "mixed@example.com", " spaced@example.com", "spaced@example.com"]
        + [600, 5_000, 40_000].map { String(repeating: "l", count: $0) + "@example.com" }

    /// Every key worth looking an account up by, given the accounts' `uids`: each email as stored,
    /// upper-cased and padded as typed, blank keys, each uid in both cases, and an unknown uid.
    static func keys(uids: [String]) -> [String] {
        emails.flatMap { [$0, $0.uppercased(), "  \($0)\t"] } + ["", " ", "\t"]
            + uids.flatMap { [$0, $0.uppercased(), " \($0) "] } + [UUIDBits(high: 0xDEAD, low: 1).uuidString]
    }

    /// A history of about `count` events from `seed`, starting at `start`: accounts created (often on
    /// an email in use), profiles with short, decomposed, long and one giant name, email changes and
    /// verifications (of the email held, a twin of it, or another), disables, enables, password
    /// changes, deletions, erasures and sessions; with `traffic`, also refused sign-ins and ended sessions.
    /// An erased account's personal texts read empty in every event, as a read after its key is gone gives them.
    static func events(seed: UInt64, count: Int, start: Timestamp = Timestamp(millis: 1_800_000_000_000), traffic: Bool = false) -> [ViewEvent] {
        let random = SeededRandom(seed: seed)
        var facts: [(StreamCategory, UUIDBits, ViewEvent.Fact)] = []
        var live: [UUIDBits] = [], registrationOf: [UUIDBits: UUIDBits] = [:], emailOf: [UUIDBits: String] = [:]
        var erased: Set<UUIDBits> = [], sessions: [(UUIDBits, UUIDBits)] = []
        // One name longer than an arena chunk, at the first profile from a random point on.
        var giantAt: Int? = random.next(count / 2)
        func email() -> String { random.oneIn(2) ? random.pick(twins.flatMap { $0 }) : random.pick(emails) }
        func name(_ n: Int) -> String {
            if let giant = giantAt, n >= giant {
                giantAt = nil
                return String(repeating: "G", count: 300_000)
            }
            switch random.next(10) {
            case 0...4: return "P\(n)"
            case 5: return "Jos\u{E9} \(n)"
            case 6: return "Jose\u{301} \(n)"
            default: return String(repeating: "N", count: 4_000 + random.next(20_000)) + "\(n)"
            }
        }
        while facts.count < count {
            let n = facts.count
            let uid = live.isEmpty ? nil : random.pick(live)
            switch (random.next(traffic ? 24 : 20), uid) {
            case (0...3, _), (_, nil):
                let new = UUIDBits(high: 0xACC0 + seed, low: UInt64(n)), registration = UUIDBits(high: 0x2E6 + seed, low: UInt64(n))
                let chosen = email()
                (registrationOf[new], emailOf[new]) = (registration, chosen)
                live.append(new)
                facts.append((.registration, registration, .accountCreated(uid: new, email: chosen, withImage: random.oneIn(3))))
            case (4...7, let uid?):
                facts.append((.registration, registrationOf[uid]!, .profileWritten(uid: uid, userName: name(n),
                    profileImage: random.oneIn(3) ? UUIDBits(high: 0x1A6, low: UInt64(n)) : nil, createdAt: start.adding(milliseconds: Int64(n) * 1_000))))
            case (8, let uid?), (9, let uid?):
                let chosen = email()
                facts.append((.account, uid, .emailChanged(uid: uid, email: chosen, previousEmail: emailOf[uid]!)))
                emailOf[uid] = chosen
            case (10, let uid?), (11, let uid?):
                // Mostly the email held; sometimes another spelling of it, or another email.
                let held = emailOf[uid]!
                let verified = random.oneIn(2) ? held : random.pick((twins.first { $0.contains(held) } ?? []) + [email()])
                facts.append((.account, uid, .emailVerified(uid: uid, email: verified)))
            case (12, let uid?): facts.append((.account, uid, .accountDisabled(uid: uid, reason: "held")))
            case (13, let uid?): facts.append((.account, uid, .accountEnabled(uid: uid)))
            case (14, let uid?): facts.append((.account, uid, .passwordChanged(uid: uid, reason: random.oneIn(2) ? .change : .reset)))
            case (15, let uid?):
                let compensation = random.oneIn(2)
                facts.append((compensation ? .registration : .account, compensation ? registrationOf[uid]! : uid,
                              .accountDeleted(uid: uid, reason: compensation ? .compensation : .operator)))
            case (16, let uid?):
                // Deleted and erased: nothing more happens to the account.
                facts.append((.account, uid, .accountDeleted(uid: uid, reason: .userRequest)))
                facts.append((.account, uid, .personalDataErased(uid: uid, reason: .accountDeleted)))
                erased.insert(uid)
                live.removeAll { $0 == uid }
            case (17...19, let uid?):
                // Mostly a known account; sometimes one no log created.
                let owner = random.oneIn(10) ? UUIDBits(high: 0xDEAD, low: UInt64(n)) : uid
                let session = UUIDBits(high: 0x5E5 + seed, low: UInt64(n))
                sessions.append((session, owner))
                facts.append((.session, session, .sessionStarted(session: session, uid: owner, expiresAt: Timestamp(millis: start.millis + Int64(n) * 90_000))))
            case (20...21, _):
                facts.append((.signin, UUIDBits(high: 0x516 + seed, low: UInt64(n)),
                              .signInFailed(email: email(), reason: random.pick([.wrongPassword, .wrongPassword, .unknownEmail]))))
            default:
                guard !sessions.isEmpty else { continue }
                let (session, owner) = sessions.remove(at: random.next(sessions.count))
                let revocation = random.oneIn(2) ? ViewEvent.Revocation(uid: owner, reason: "password-changed") : nil
                facts.append((.session, session, .sessionEnded(session: session, revocation: revocation)))
            }
        }
        var at = start
        return facts.enumerated().map { n, item in
            at = at.adding(milliseconds: Int64(1 + random.next(60_000)))
            let (category, stream, fact) = item
            return ViewEvent(seq: n + 1, at: at, category: category, stream: stream, fact: erasing(fact, of: erased))
        }
    }

    /// `fact` with the personal texts of the accounts in `erased` read empty (`PersonalMembers`).
    private static func erasing(_ fact: ViewEvent.Fact, of erased: Set<UUIDBits>) -> ViewEvent.Fact {
        switch fact {
        case .accountCreated(let uid, _, let image) where erased.contains(uid): .accountCreated(uid: uid, email: "", withImage: image)
        case .profileWritten(let uid, _, let image, let at) where erased.contains(uid):
            .profileWritten(uid: uid, userName: "", profileImage: image, createdAt: at)
        case .emailChanged(let uid, _, _) where erased.contains(uid): .emailChanged(uid: uid, email: "", previousEmail: "")
        case .emailVerified(let uid, _) where erased.contains(uid): .emailVerified(uid: uid, email: "")
        case .accountDisabled(let uid, _) where erased.contains(uid): .accountDisabled(uid: uid, reason: "")
        default: fact
        }
    }

    // MARK: Comparing

    /// How `view` answers other than `plain`, in words: the first difference of each kind of answer
    /// (so that one does not hide another), empty when they agree. Checks every row (byte for byte),
    /// the `--json` rows, `row(uidOrEmail:)` for every key of `keys(uids:)`, `row(uid:)` for every
    /// uid, and `live(email:)` for every email.
    static func differences(_ view: UserView, _ plain: PlainUsers) -> [String] {
        let (got, want) = (view.rows, plain.rows)
        /// The first of `checks` (a question, the view's answer, the plain one) whose answers differ.
        func first(_ checks: some Sequence<(String, UserRow?, UserRow?)>) -> String? {
            checks.lazy.first { Spelled($0.1) != Spelled($0.2) }.map { "\($0.0): view \(Spelled($0.1)), plain \(Spelled($0.2))" }
        }
        var json: [UInt8] = []
        ViewRowsWriter.users(view) { json.append(contentsOf: $0) }
        return [
            first((0..<max(got.count, want.count)).lazy.map { ("users row \($0)", $0 < got.count ? got[$0] : nil, $0 < want.count ? want[$0] : nil) }),
            json == JSONWriter.bytes(.array(want.map(\.json))) ? nil : "the --json rows differ from the JSON of the plain rows",
            first(keys(uids: want.map(\.uid)).lazy.map { ("row(uidOrEmail: \(Spelled.escaped($0)))", view.row(uidOrEmail: $0), plain.row(uidOrEmail: $0)) }),
            first(want.lazy.map { ("row(uid: \($0.uid))", view.row(uid: $0.uid), $0) }),
            first((emails + [""]).lazy.map { ("live(email: \(Spelled.escaped($0)))", view.live(email: $0), plain.live(email: $0)) }),
        ].compactMap { $0 }
    }
}

// MARK: - Spelled

/// A user row (or its absence) as bytes, field by field: `UserRow`'s `==` compares texts as Swift
/// strings, which holds two normal forms of one email equal.
struct Spelled: Equatable, CustomStringConvertible {
    private let fields: [[UInt8]?]?

    /// The fields of `row`, nil for none.
    init(_ row: UserRow?) {
        fields = row.map { r in
            [r.uid, r.email, r.userName, r.profileImageName, r.createdAt?.rfc3339, r.status.rawValue, r.registration,
             r.emailVerified ? "verified" : "unverified"].map { $0.map { Array($0.utf8) } }
        }
    }

    /// The fields, non-ASCII scalars escaped and long texts cut.
    var description: String {
        guard let fields else { return "none" }
        return "[" + fields.map { $0.map { Self.escaped(String(decoding: $0, as: UTF8.self)) } ?? "nil" }.joined(separator: ", ") + "]"
    }

    /// `text` quoted, non-ASCII scalars as `\u{…}`, cut after 40 characters (with its length in bytes).
    static func escaped(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(40).map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
        return "\"" + shown + (text.unicodeScalars.count > 40 ? "…\" (\(text.utf8.count) bytes)" : "\"")
    }
}
