// MARK: - UserRow

/// A user as the log tells it.
public struct UserRow: Equatable, Sendable {
    /// Lifecycle of an account (`AccountFold` moves it).
    public typealias Status = AccountStatus

    /// The user id.
    public var uid: String
    /// The normalized email.
    public var email: String
    /// The display name (nil while pending).
    public var userName: String?
    /// The profile image (nil for the default image).
    public var profileImageName: String?
    /// From `ProfileWritten` (nil while pending).
    public var createdAt: Timestamp?
    /// The status.
    public var status: Status
    /// The registration that created it.
    public var registration: String
    /// True when the email it holds was verified (`EmailVerified` of that email, no `EmailChanged` since).
    public var emailVerified = false
}

// MARK: - UserView

/// The users view: a fold over registration events. Rows are kept compact (ids as 128-bit values,
/// emails and names as bytes in one `TextArena`) in creation order; `rows` spells them out.
public struct UserView: Sendable {
    /// One user, compact. Its texts are `Ref`s into the view's `texts`.
    struct Record: Sendable {
        var uid: UUIDBits
        /// `email.seededHash`, next to the uid a lookup compares (see `emailHash(of:)`).
        var emailHash: Int
        var registration: UUIDBits
        /// The normalized email, and the display name (`none` while pending).
        var email: TextArena.Ref
        var userName: TextArena.Ref
        /// The seq of the event that gave it its email (its last `AccountCreated` or `EmailChanged`):
        /// which account an email's last is, after a restore.
        var emailSeq: Int
        // One per user: the image and the time without an optional's padding (absent: `present`).
        private var imageStorage = UUIDBits.zero
        private var createdMillis: Int64 = 0
        // The one-byte fields last, side by side (a record of 96 bytes, not 104).
        var status: UserRow.Status
        var emailVerified = false
        private var present: UInt8 = 0

        var profileImage: UUIDBits? {
            get { present & 1 != 0 ? imageStorage : nil }
            set { imageStorage = newValue ?? .zero; present = newValue != nil ? present | 1 : present & ~1 }
        }
        var createdAt: Timestamp? {
            get { present & 2 != 0 ? Timestamp(millis: createdMillis) : nil }
            set { createdMillis = newValue?.millis ?? 0; present = newValue != nil ? present | 2 : present & ~2 }
        }

        init(uid: UUIDBits, registration: UUIDBits, email: TextArena.Ref, emailHash: Int, userName: TextArena.Ref,
             profileImage: UUIDBits?, createdAt: Timestamp?, status: UserRow.Status, emailSeq: Int, emailVerified: Bool = false) {
            self.uid = uid; self.emailHash = emailHash; self.registration = registration; self.email = email
            self.userName = userName; self.emailSeq = emailSeq; self.status = status; self.emailVerified = emailVerified
            self.profileImage = profileImage; self.createdAt = createdAt
        }
    }

    /// Users in creation order.
    private(set) var records = ChunkedArray<Record>()
    /// The records' emails and names.
    private(set) var texts = TextArena()
    /// Position in `records` by uid.
    private var index = PositionIndex()
    /// The last account created with each email: position in `records`. The account is live (has
    /// the email) unless it was deleted since; a deleted account keeps its slot until the email is
    /// used again, so the fold never removes a key.
    private var byEmail = PositionIndex()

    /// Emails whose last account moved to another email since (an email change, or a hand-written
    /// log creating a uid again): that account, which no longer holds them. `byEmail` reads its keys
    /// back from the rows, so it cannot say this itself. Keyed by the emails' bytes, as `byEmail` is.
    public private(set) var movedAway: [EmailBytes: UUIDBits] = [:]

    /// An empty view.
    public init() {}

    // MARK: - Fold

    /// Applies one event: its account facts through `AccountFold`, then what only this view keeps.
    public mutating func apply(_ event: ViewEvent) {
        AccountFold.evolve(&self, event)
        applyDetails(event)
    }

    /// Applies what the view keeps beyond the account fold's state: a profile's name, image and time,
    /// and whether the email held is verified (an email change, which the fold has applied, ends that).
    mutating func applyDetails(_ event: ViewEvent) {
        switch event.fact {
        case .profileWritten(let uid, let userName, let profileImage, let createdAt):
            guard let at = position(of: uid).map(Int.init) else { return }
            records[at].userName = texts.add(userName)
            records[at].profileImage = profileImage
            records[at].createdAt = createdAt
        case .emailVerified(let uid, let email):
            guard let at = position(of: uid).map(Int.init), texts.holds(records[at].email, email) else { return }
            records[at].emailVerified = true
        case .emailChanged(let uid, _, _):
            guard let at = position(of: uid).map(Int.init) else { return }
            records[at].emailVerified = false
        default:
            return
        }
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Inserts `record`, or replaces the one with its uid in place; returns its position.
    @discardableResult
    mutating func upsert(_ record: Record) -> Int32 {
        if let at = position(of: record.uid) {
            records[Int(at)] = record
            return at
        }
        let at = Int32(records.count)
        records.append(record)
        let rows = records
        index.set(record.uid, to: at) { rows[Int($0)].uid }
        return at
    }

    /// Points `email` (held by the record at `at`) at that record.
    private mutating func index(email: String, at: Int32) {
        let rows = records, texts = self.texts
        // Every entry: an account that moved away and back may have left two (`setEvery`).
        byEmail.setEvery(email, to: at, where: { texts.holds(rows[Int($0)].email, email) })
    }

    /// The position of the user with `uid`.
    func position(of uid: UUIDBits) -> Int32? { index.find(uid) { records[Int($0)].uid } }

    /// Hints where a lookup of account `uid` reads, at `stage` (see `PositionIndex.prefetch`).
    func prefetch(uid: UUIDBits, _ stage: PrefetchStage, _ hint: (UnsafeRawPointer) -> Void) {
        if let at = index.prefetch(uid, stage, hint) { records.prefetch(Int(at), hint) }
    }

    /// Hints where a lookup of the last account created with `email` reads, at `stage`.
    func prefetch(email: String, _ stage: PrefetchStage, _ hint: (UnsafeRawPointer) -> Void) {
        if let at = byEmail.prefetch(email, stage, hint) { records.prefetch(Int(at), hint) }
    }

    /// Restores a checkpointed row. Rows come in first-creation order, which is not the order of the
    /// last creation when a uid was created again, so an email goes to the account created with it
    /// last (the fold's `lastAccount`), by the seq of its creation.
    mutating func restore(uid: UUIDBits, registration: UUIDBits, email: String, userName: String?, profileImage: UUIDBits?,
                          createdAt: Timestamp?, status: UserRow.Status, emailSeq: Int, emailVerified: Bool = false) {
        let record = Record(uid: uid, registration: registration, email: texts.add(email), emailHash: email.seededHash,
                            userName: texts.add(userName), profileImage: profileImage, createdAt: createdAt, status: status,
                            emailSeq: emailSeq, emailVerified: emailVerified)
        let at = upsert(record)
        if let last = lastPosition(of: email), records[Int(last)].emailSeq > record.emailSeq { return }
        index(email: email, at: at)
    }

    /// The position of the last account created with `email`, deleted or not.
    private func lastPosition(of email: String) -> Int32? {
        if !movedAway.isEmpty, let uid = movedAway[EmailBytes(email)] { return position(of: uid) }
        return byEmail.find(email, where: { texts.holds(records[Int($0)].email, email) })
    }

    /// Restores the emails whose last account moved away (after the rows).
    mutating func restoreMovedAway(_ moved: [EmailBytes: UUIDBits]) { movedAway = moved }

    /// The position of the live account with `email` (`AccountFold.liveAccount`).
    private func livePosition(of email: String) -> Int32? {
        AccountFold.liveAccount(of: emailKey(email), in: self).flatMap(position(of:))
    }

    /// The email of `record`.
    func email(of record: Record) -> String { texts.text(record.email) }

    /// The display name of `record` (nil while pending).
    func userName(of record: Record) -> String? { texts.string(record.userName) }

    /// `record` spelled out.
    func row(_ record: Record) -> UserRow {
        UserRow(uid: record.uid.uuidString, email: email(of: record), userName: userName(of: record),
                profileImageName: record.profileImage?.uuidString, createdAt: record.createdAt, status: record.status,
                registration: record.registration.uuidString, emailVerified: record.emailVerified)
    }

    // MARK: - Reads

    /// Users in creation order.
    public var rows: [UserRow] { records.map(row(_:)) }

    /// Number of users.
    public var count: Int { records.count }

    /// Each user's status, in creation order.
    public var statuses: [UserRow.Status] { records.map(\.status) }

    /// The user with `uid`, if any.
    public func row(uid: String) -> UserRow? {
        UUIDBits(uuid: uid).flatMap(position(of:)).map { row(records[Int($0)]) }
    }

    /// The live account with `email`, if any.
    public func live(email: String) -> UserRow? { livePosition(of: email).map { row(records[Int($0)]) } }

    /// The user a command names by `key`: the account with that uid (any case), else the live account of that
    /// email (normalized as `EmailRule` normalizes a typed email), else the account last created with it.
    /// An erased email reads as the empty text: a blank key names no account (an erased one is named by its uid).
    public func row(uidOrEmail key: String) -> UserRow? {
        let email = EmailRule.normalized(key)
        if let row = row(uid: Identifiers.typed(key.trimmingSpaces)) { return row }
        guard !ErasedText.isErased(email) else { return nil }
        return live(email: email) ?? records.last { texts.holds($0.email, email) }.map(row(_:))
    }

    /// Status of the user with `uid` (nil when unknown), without spelling the row out (nor touching its email).
    public func status(of uid: UUIDBits) -> UserRow.Status? { position(of: uid).map { records[Int($0)].status } }


    /// Checks the view's invariants; returns the violations (empty when sound).
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for (at, record) in records.enumerated() {
            let email = email(of: record)
            if position(of: record.uid) != Int32(at) { out.append("user \(record.uid.uuidString) is not indexed by uid") }
            if record.status == .active && record.createdAt == nil { out.append("active user \(record.uid.uuidString) has no profile") }
            if email.seededHash != record.emailHash { out.append("the email hash of user \(record.uid.uuidString) is not its email's") }
            if let last = lastPosition(of: email), !texts.holds(records[Int(last)].email, email),
               AccountFold.liveAccount(of: emailKey(email), in: self) != nil {
                out.append("the email of user \(record.uid.uuidString) is indexed to another email's account")
            }
            if lastPosition(of: email) == nil { out.append("email of user \(record.uid.uuidString) is not indexed") }
        }
        if index.count != records.count { out.append("index and users differ") }
        return out
    }
}

extension UserView: Equatable {
    /// The same users, field by field and text by text, in the same order, and the same moved-away
    /// emails (where each view's arena keeps its texts does not matter; the indexes follow the rows).
    public static func == (a: UserView, b: UserView) -> Bool {
        guard a.records.count == b.records.count, a.movedAway == b.movedAway else { return false }
        return zip(a.records, b.records).allSatisfy { x, y in
            x.uid == y.uid && x.emailHash == y.emailHash && x.registration == y.registration && x.emailSeq == y.emailSeq
                && x.status == y.status && x.emailVerified == y.emailVerified && x.profileImage == y.profileImage
                && x.createdAt == y.createdAt && a.texts.same(x.email, as: y.email, in: b.texts)
                && a.texts.same(x.userName, as: y.userName, in: b.texts)
        }
    }
}

// MARK: - The account fold's state

/// An email as the views key it: the text and its per-process `seededHash`, kept side by side.
public struct ViewEmail: Equatable, Sendable {
    /// The normalized email.
    public var email: String
    /// `email.seededHash`.
    public var hash: Int

    /// The key of `email`.
    public init(_ email: String) { self.email = email; self.hash = email.seededHash }

    init(email: String, hash: Int) { self.email = email; self.hash = hash }

    /// The same email: the same bytes (the hashes follow).
    public static func == (a: ViewEmail, b: ViewEmail) -> Bool { a.hash == b.hash && EmailBytes(a.email) == EmailBytes(b.email) }
}

/// The users view keeps the accounts' part of the fold's state in its records; it keeps no
/// sign-in failures (`LedgerViews` adds the sign-in view's).
extension UserView: AccountFoldState {
    /// The key of `email`.
    public func emailKey(_ email: String) -> ViewEmail { ViewEmail(email) }

    /// The account `uid`'s status and email.
    public func account(_ uid: UUIDBits) -> AccountFacts<ViewEmail>? {
        // Member by member where the record lies: a copy of the record retained all its strings.
        position(of: uid).map { at in
            AccountFacts(status: records[Int(at)].status, email: ViewEmail(email: texts.text(records[Int(at)].email), hash: records[Int(at)].emailHash))
        }
    }

    /// The uid of the account last created with `email`.
    public func lastAccount(of email: ViewEmail) -> UUIDBits? { lastPosition(of: email.email).map { records[Int($0)].uid } }

    /// Adds (or replaces) the record of `uid`, pending, and makes it `email`'s last account.
    public mutating func recordCreation(of uid: UUIDBits, email: ViewEmail, status: AccountStatus, by event: ViewEvent) {
        if let at = position(of: uid), case let old = self.email(of: records[Int(at)]), EmailBytes(old) != EmailBytes(email.email),
           lastPosition(of: old) == at {
            movedAway[EmailBytes(old)] = uid
        }
        if !movedAway.isEmpty { movedAway[EmailBytes(email.email)] = nil }
        let record = Record(uid: uid, registration: event.stream, email: texts.add(email.email), emailHash: email.hash, userName: .none,
                            profileImage: nil, createdAt: nil, status: status, emailSeq: event.seq)
        index(email: email.email, at: upsert(record))
    }

    /// Sets the status of `uid`.
    public mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) {
        guard let at = position(of: uid) else { return }
        records[Int(at)].status = status
    }

    /// The users view keeps no password hash.
    public mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) {}

    /// Moves the record of `uid` to `email` and makes it `email`'s last account; its old email's last
    /// account has then moved away.
    public mutating func recordEmailChange(of uid: UUIDBits, to email: ViewEmail, by event: ViewEvent) {
        guard let at = position(of: uid) else { return }
        let old = self.email(of: records[Int(at)])
        if lastPosition(of: old) == at { movedAway[EmailBytes(old)] = uid }
        if !movedAway.isEmpty { movedAway[EmailBytes(email.email)] = nil }
        records[Int(at)].email = texts.add(email.email)
        records[Int(at)].emailHash = email.hash
        records[Int(at)].emailSeq = event.seq
        index(email: email.email, at: at)
    }

    /// The users view keeps no failures.
    public var keepsFailures: Bool { false }
    /// The users view keeps no failures.
    public func mayHaveFailures(_ email: ViewEmail) -> Bool { false }
    /// The users view keeps no failures.
    public func recentFailures(of email: ViewEmail) -> [Timestamp] { [] }
    /// The users view keeps no failures.
    public mutating func appendFailure(of email: ViewEmail, at time: Timestamp, by event: ViewEvent) {}
    /// The users view keeps no failures.
    public mutating func clearFailures(of email: ViewEmail) {}
}
