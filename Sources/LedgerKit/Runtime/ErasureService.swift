import LedgerDomain

// MARK: - ErasureService

/// `ledger erase`: forgets what the ledger holds about people outside live accounts. An address's
/// sign-in failures and rejected registrations are encrypted under the key of their UTC day
/// (`address-<YYYY-MM-DD>`, `SubjectID`), so erasing an address destroys the key of every day that
/// holds it (with the other addresses of those days: a day's key is the smallest unit). Expiry
/// erases the days older than the retention period, and the accounts deleted before it (but not
/// those whose deletion kept the data: a legal hold). Each erasure is an event that holds no
/// personal data (`AddressDataErased`, `PersonalDataErased`), appended in one batch; the keys are
/// destroyed once it is durable (`PersonalDataKeys`).
public final class ErasureService {
    let store: any LedgerStore
    let signInLocks: (any SignInLocks)?
    let clock: any Clock
    let random: any RandomSource

    /// A service over `store`; an erased address's sign-in lock is forgotten through `signInLocks`.
    public init(store: any LedgerStore, signInLocks: (any SignInLocks)? = nil, clock: any Clock, random: any RandomSource = SecureRandom()) {
        self.store = store; self.signInLocks = signInLocks; self.clock = clock; self.random = random
    }

    /// What an erasure did.
    public struct Outcome: Equatable, Sendable {
        /// The subjects whose keys were destroyed, in the order erased.
        public var subjects: [SubjectID]
        /// The events appended.
        public var appended: [RecordedEvent]
    }

    /// Erases every day that holds `email` (normalized) outside accounts: the days of its sign-in
    /// failures and rejected registrations that no account held. Refused (`account-live`) while a
    /// live account holds it: that data is the account's, erased with it.
    public func erase(email raw: String) throws -> Outcome {
        try requireSealed()
        let email = EmailRule.normalized(raw)
        guard !email.isEmpty else { throw AccountRefusal(code: .accountLive, message: "an empty address names nobody") }
        let views = try store.currentViews(now: clock.now(), usingCheckpoint: false)
        if let live = views.users.live(email: email) {
            throw AccountRefusal(code: .accountLive, message: "account \(live.uid) holds \(email): its data goes with it (`ledger account delete`)")
        }
        var days: [SubjectID] = []
        var erased: Set<SubjectID> = []
        try store.read(from: 1) { recorded in
            if let subject = recorded.event.erasedSubject { erased.insert(subject) }
            guard let subject = Self.addressSubject(of: recorded), !days.contains(subject) else { return true }
            switch recorded.event {
            case .signInFailed(let failed) where EmailBytes(failed.email) == EmailBytes(email): days.append(subject)
            // A rejected registration gave the address (as typed), or its message quotes it.
            case .failed(let failed) where EmailRule.normalized(failed.email ?? "") == email
                || (EmailRule.problem(email) == nil && failed.message.lowercased().contains(email)):
                days.append(subject)
            default: break
            }
            return true
        }
        let outcome = try append(days.filter { !erased.contains($0) }.map { .addressDataErased(AddressDataErased(subject: $0, reason: .operator)) })
        try signInLocks?.forget(emails: [email])
        return outcome
    }

    /// Erases the personal data of subjects without an account older than `days` days: every day's
    /// addresses before the cut-off day, and every account deleted before the cut-off whose
    /// deletion did not keep its data.
    public func eraseExpired(olderThan days: Int) throws -> Outcome {
        try requireSealed()
        let cutoff = Timestamp(millis: clock.now().millis - Int64(days) * 86_400_000)
        let cutoffDay = String(cutoff.rfc3339.prefix(10))
        var seen: [SubjectID] = [], seenSet: Set<SubjectID> = [], erased: Set<SubjectID> = []
        var deletions: [UUIDBits: (at: Timestamp, kept: Bool)] = [:]
        try store.read(from: 1) { recorded in
            if let subject = recorded.event.erasedSubject { erased.insert(subject) }
            if let subject = Self.addressSubject(of: recorded), subject.day.map({ $0 < cutoffDay }) == true, seenSet.insert(subject).inserted {
                seen.append(subject)
            }
            if case .accountDeleted(let deleted) = recorded.event, let uid = UUIDBits(uuid: deleted.uid) {
                deletions[uid] = (recorded.at, deleted.keepPersonalData)
            }
            return true
        }
        let users = try store.currentViews(now: clock.now(), usingCheckpoint: false).users
        var events: [LedgerEvent] = seen.filter { !erased.contains($0) }.map { .addressDataErased(AddressDataErased(subject: $0, reason: .retention)) }
        for row in users.rows where row.status == .deleted {
            guard let uid = UUIDBits(uuid: row.uid), let deletion = deletions[uid], !deletion.kept, deletion.at < cutoff,
                  !erased.contains(.account(uid)), !ErasedText.isErased(row.email) else { continue }
            events.append(.personalDataErased(PersonalDataErased(uid: row.uid, reason: .retention)))
        }
        return try append(events)
    }

    /// The address subject a line's personal members are encrypted under, when it has one.
    static func addressSubject(of recorded: RecordedEvent) -> SubjectID? {
        guard recorded.envelope.v >= 2, let rule = PersonalMembers.rule(for: recorded.event.type) else { return nil }
        for name in rule.members {
            if let stored = recorded.envelope.data[name], let member = try? EncryptedMember(json: stored) {
                return member.subject.kind == .address ? member.subject : nil
            }
        }
        return nil
    }

    /// Refuses on a store whose personal data is not encrypted.
    private func requireSealed() throws {
        guard try store.checkedDataVersion() >= 2 else {
            throw AccountRefusal(code: .migrateFirst,
                                 message: "the log is data version 1: its personal data is not encrypted and can be erased only after `ledger migrate`")
        }
    }

    /// Appends `events` as one batch (each in a stream of its own: a fresh `signin-` stream for a
    /// day, the account's stream for an account), noted before and keys destroyed after.
    private func append(_ events: [LedgerEvent]) throws -> Outcome {
        guard !events.isEmpty else { return Outcome(subjects: [], appended: []) }
        let subjects = events.compactMap(\.erasedSubject)
        let parts = events.map { event -> StreamAppend in
            if case .personalDataErased(let erased) = event {
                return StreamAppend([event], to: StreamCategory.account.stream(erased.uid), expected: .any)
            }
            return StreamAppend([event], to: StreamCategory.signin.stream(Identifiers.uuid(fromRandom: random.bytes(16))), expected: .noStream)
        }
        let appended = try store.append(parts, condition: nil)
        try store.destroyKeys(of: subjects)
        return Outcome(subjects: subjects, appended: appended)
    }
}
