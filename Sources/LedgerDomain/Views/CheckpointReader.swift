// MARK: - CheckpointReader

/// Reads the views and id fingerprints `CheckpointWriter` wrote, pulling bytes from `source` about 1 MiB at a time.
/// Every count, length, tag and enum is checked: any other input throws `CheckpointError` (never a trap),
/// and the caller then replays from scratch.
public struct CheckpointReader {
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    /// Bytes taken from `source` so far.
    private var pulled = 0
    /// Reads up to `into.count` bytes into `into`; returns how many (0 at the end).
    private let source: (UnsafeMutableRawBufferPointer) throws -> Int

    private static let chunk = 1 << 20
    /// The longest string a row may hold: a text of a line of the log, which may be long (an email
    /// of 100 KB is a valid, if odd, member; a checkpoint the writer saved is read back whole). The
    /// bound keeps a forged length from reading more than that before it is refused.
    private static let maxString = 1 << 26

    private init(source: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) { self.source = source }

    /// The views and id fingerprints read from `source`, which must end right after them. The
    /// fingerprints must be one per event the views applied, strictly increasing. Only the views
    /// `selection` keeps (`LedgerViews.narrow`) are restored; the others are checked and dropped,
    /// so a read that prints a few views never holds the rest. `erasures` are the account erasures
    /// the account changes record (`personal-data-erased`, in log order, at a seq up to the head),
    /// whatever the selection: a read from the checkpoint asks the key store about them
    /// (`Checkpoint.erasures`). `fingerprintsAt`, when given, makes the fingerprints where they
    /// lie, given their seed, count, the offset in `source`'s bytes of the first and their
    /// regions' digests (`FingerprintFile`): they are checked as they stream past but not held.
    public static func read(policy: SignInPolicy = SignInPolicy(), views selection: LedgerViews.Selection = .all,
                            fingerprintsAt: ((_ seed: UUIDBits, _ count: Int, _ offset: Int, _ regions: [FingerprintFile.Region]) -> IDFingerprints)? = nil,
                            source: @escaping (UnsafeMutableRawBufferPointer) throws -> Int)
        throws -> (views: LedgerViews, ids: IDFingerprints, erasures: [RecordedErasure]) {
        var r = CheckpointReader(source: source)
        var views = LedgerViews()
        views.signIns = SignInView(policy: policy)
        views.narrow(to: selection)
        let kept = views.selection
        guard try r.bytes(CheckpointWriter.magic.count) == CheckpointWriter.magic else { throw CheckpointError(message: "not a ledger checkpoint of this version (\(String(decoding: CheckpointWriter.magic, as: UTF8.self)))") }
        views.events = try r.count()
        views.restoreHead(seq: try r.count(), hash: try r.digest())
        let seed = try r.uuid()
        let idCount = try r.count()
        guard idCount == views.events else { throw CheckpointError(message: "\(idCount) id fingerprints for \(views.events) events") }
        let ids: IDFingerprints
        if let fingerprintsAt {
            // Checked as they go by (the seal covers them too), each region's digest kept, then
            // left where they are.
            let at = r.offset
            var regions = FingerprintFile.Regions()
            var last: UInt64?
            for _ in 0..<idCount {
                let value = try r.word()
                if let last, last >= value { throw CheckpointError(message: "id fingerprints not strictly increasing") }
                last = value
                regions.add(value)
            }
            ids = fingerprintsAt(seed, idCount, at, regions.finish())
            guard ids.count == idCount else { throw CheckpointError(message: "id fingerprints in place do not match their count") }
        } else {
            var fingerprints: [UInt64] = []
            fingerprints.reserveCapacity(min(idCount, 1 << 22))  // a count is only trusted as far as bytes follow
            for _ in 0..<idCount { fingerprints.append(try r.word()) }
            guard let held = IDFingerprints(seed: seed, sorted: fingerprints) else { throw CheckpointError(message: "id fingerprints not strictly increasing") }
            ids = held
        }
        for _ in 0..<(try r.count()) {
            let (uid, registration, email, userName) = (try r.uuid(), try r.uuid(), try r.string(), try r.optionalString())
            let (profileImage, createdAt, status) = (try r.optionalUUID(), try r.optionalTime(), try r.choice(UserRow.Status.allCases))
            let (emailSeq, emailVerified) = (try r.count(), try r.flag())
            if kept.contains(.users) {
                views.users.restore(uid: uid, registration: registration, email: email, userName: userName, profileImage: profileImage,
                                    createdAt: createdAt, status: status, emailSeq: emailSeq, emailVerified: emailVerified)
            }
        }
        for _ in 0..<(try r.count()) {
            let record = SessionView.Record(session: try r.uuid(), uid: try r.uuid(), startedAt: try r.time(),
                                            expiresAt: try r.time(), endedAt: try r.optionalTime())
            if kept.contains(.sessions) { views.sessions.upsert(record) }
        }
        for _ in 0..<(try r.count()) {
            let record = ImageView.Record(image: try r.uuid(), uid: try r.uuid(), contentType: try r.choice(ImageContentType.allCases),
                                          bytes: try r.count(), sha256: try r.digest(), storedAt: try r.time(),
                                          status: try r.choice(ImageRow.Status.allCases))
            if kept.contains(.images) { views.images.upsert(record) }
        }
        for _ in 0..<(try r.count()) {
            var s = RegistrationRow(id: try r.uuid())
            s.startedAt = try r.optionalTime(); s.lastAt = try r.optionalTime()
            s.facts.email = try r.optionalString(); s.facts.uidBits = try r.optionalUUID()
            let flags = try r.byte()
            guard flags < 16 else { throw CheckpointError(message: "bad registration flags") }
            s.facts.accountLive = flags & 1 != 0; s.facts.withImage = flags & 2 != 0
            s.facts.imageLive = flags & 4 != 0; s.facts.profileWritten = flags & 8 != 0
            s.facts.imageBits = try r.optionalUUID()
            if try r.flag() {
                var failure = Failed(step: try r.choice(RegistrationStep.allCases), reason: try r.string(), message: try r.string(),
                                     email: try r.optionalString(), uid: try r.optionalString())
                // The fold took the row's email from the failure: one string for both, as there.
                if let email = failure.email, let held = s.facts.email, held.utf8.elementsEqual(email.utf8) { failure.email = held }
                s.failure = failure
            }
            // Each compensation is an event of the registration's stream: no more than the events.
            let compensations = try r.count()
            guard compensations <= views.events else { throw CheckpointError(message: "more compensations than events") }
            for _ in 0..<compensations { s.facts.compensations.append(try r.choice(EventType.allCases)) }
            s.version = try r.count()
            if kept.contains(.registrations) { views.registrations.restore(s) }
        }
        for _ in 0..<(try r.count()) {
            var row = SignInView.Row(email: try r.string())
            row.failures = try r.count()
            // Each refusal is an event: a count beyond the events is forged, and one more refusal would overflow it.
            guard row.failures <= views.events else { throw CheckpointError(message: "more refused sign-ins than events") }
            // Each recent wrong password is an event: no more than the events.
            let recent = try r.count()
            guard recent <= views.events else { throw CheckpointError(message: "more recent refusals than events") }
            for _ in 0..<recent { row.recentFailures.append(try r.time()) }
            if kept.contains(.signIns) { views.signIns.restore(row) }
        }
        var erasures: [RecordedErasure] = []
        var moved: [EmailBytes: UUIDBits] = [:]
        for _ in 0..<(try r.count()) { moved[EmailBytes(try r.string())] = try r.uuid() }
        if kept.contains(.users) { views.users.restoreMovedAway(moved) }
        for _ in 0..<(try r.count()) {
            let broken = RuleBreak(kind: try r.choice(RuleBreak.Kind.allCases), seq: try r.count(), uid: try r.uuid())
            if kept.isSuperset(of: LedgerViews.ruleBreakViews) { views.ruleBreaks.append(broken) }
        }
        for _ in 0..<(try r.count()) {
            let row = AccountChangeView.ChangeRow(
                seq: try r.count(), at: try r.time(), uid: try r.uuid(), email: try r.string(),
                change: try r.choice(AccountChangeView.Change.allCases), reason: try r.optionalString(), newEmail: try r.optionalString())
            if kept.contains(.accountChanges) { views.accountChanges.changes.append(row) }
            if row.change == .personalDataErased, row.seq >= 1, row.seq <= views.head.seq {
                erasures.append(RecordedErasure(seq: row.seq, subject: .account(row.uid)))
            }
        }
        for _ in 0..<(try r.count()) {
            let row = AccountChangeView.RevokedRow(
                seq: try r.count(), at: try r.time(), uid: try r.uuid(), session: try r.uuid(), reason: try r.string())
            if kept.contains(.accountChanges) { views.accountChanges.revoked.append(row) }
        }
        guard try r.atEnd() else { throw CheckpointError(message: "bytes after the views") }
        return (views, ids, erasures)
    }

    // MARK: - Bytes

    /// The offset in the source's bytes of the next byte to read.
    private var offset: Int { pulled - (buffer.count - position) }

    /// Makes `count` bytes available at `position` (count ≤ the chunk).
    private mutating func need(_ count: Int) throws {
        if buffer.count - position >= count { return }
        buffer.removeFirst(position)
        position = 0
        while buffer.count < count && !ended {
            let old = buffer.count
            var n = 0
            buffer = try [UInt8](unsafeUninitializedCapacity: old + Self.chunk) { out, initialized in
                initialized = old
                if old > 0 { out.baseAddress!.update(from: buffer, count: old) }
                n = try source(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(out)[old...]))
                initialized = old + n
            }
            pulled += n
            if n == 0 { ended = true }
        }
        guard buffer.count >= count else { throw CheckpointError(message: "truncated") }
    }

    private mutating func atEnd() throws -> Bool {
        if position < buffer.count { return false }
        do { try need(1) } catch { return true }
        return false
    }

    private mutating func bytes(_ count: Int) throws -> [UInt8] {
        try need(count)
        defer { position += count }
        return Array(buffer[position..<(position + count)])
    }

    private mutating func byte() throws -> Int {
        try need(1)
        defer { position += 1 }
        return Int(buffer[position])
    }

    private mutating func word() throws -> UInt64 {
        try need(8)
        defer { position += 8 }
        return buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: UInt64.self)) }
    }

    /// A non-negative count or number (a negative one is damage).
    private mutating func count() throws -> Int {
        let value = Int64(bitPattern: try word())
        guard value >= 0 else { throw CheckpointError(message: "negative count") }
        return Int(value)
    }

    private mutating func flag() throws -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw CheckpointError(message: "bad presence tag")
        }
    }

    /// A time of the log: one no line can spell (a forged checkpoint's) is refused, not read as
    /// another (a row keeps an absent time as one of those, `EventTimes`).
    private mutating func time() throws -> Timestamp {
        let time = Timestamp(millis: Int64(bitPattern: try word()))
        guard Timestamp.spellable.contains(time) else { throw CheckpointError(message: "a time no line can spell") }
        return time
    }

    private mutating func uuid() throws -> UUIDBits { UUIDBits(high: try word(), low: try word()) }

    private mutating func digest() throws -> Digest32 { Digest32(a: try word(), b: try word(), c: try word(), d: try word()) }

    private mutating func string() throws -> String {
        let length = try count()
        guard length <= Self.maxString else { throw CheckpointError(message: "string too long") }
        try need(length)
        defer { position += length }
        // Decoding repairs invalid UTF-8, so the text then differs from the bytes: one pass with no
        // generic metadata looked up per call, as `String(validating:as:)` does.
        guard let text = buffer.withUnsafeBufferPointer({ all -> String? in
            let bytes = UnsafeBufferPointer(rebasing: all[position..<(position + length)])
            var text = String(decoding: bytes, as: UTF8.self)
            return text.withUTF8 { $0.elementsEqual(bytes) } ? text : nil
        })
        else { throw CheckpointError(message: "invalid UTF-8") }
        return text
    }

    private mutating func choice<Value>(_ cases: [Value]) throws -> Value {
        let index = try byte()
        guard index < cases.count else { throw CheckpointError(message: "unknown enum value") }
        return cases[index]
    }

    private mutating func optionalString() throws -> String? { try flag() ? try string() : nil }

    private mutating func optionalUUID() throws -> UUIDBits? { try flag() ? try uuid() : nil }

    private mutating func optionalTime() throws -> Timestamp? { try flag() ? try time() : nil }
}
