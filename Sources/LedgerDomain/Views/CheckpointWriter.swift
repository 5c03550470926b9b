// MARK: - CheckpointError

/// A checkpoint that does not decode (the shell then ignores it and replays from scratch).
public struct CheckpointError: Error, Equatable, Sendable {
    /// What was wrong.
    public let message: String
}

// MARK: - CheckpointWriter

/// Writes every view, and the fingerprints of the ids of the lines they reflect, as compact binary (little-endian fixed-width numbers, 16-byte ids, 32-byte
/// digests, length-prefixed UTF-8), handed to `sink` about 1 MiB at a time, so saving the views of a
/// million events never holds them twice. `CheckpointReader` reads it back.
public struct CheckpointWriter {
    /// Identifies the encoding, bumped when it or what the views fold into it changes (an old
    /// checkpoint is then ignored and replaced): version 8 checks no rule against an erased email.
    public static let magic = Array("LEDGERV8".utf8)

    private var out: [UInt8] = []
    private let sink: (UnsafeRawBufferPointer) -> Void

    private init(sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        out.reserveCapacity(1 << 20 + 4096)
    }

    /// Writes `views` and `ids` (the fingerprints of the ids of the lines they reflect) to `sink`.
    public static func write(_ views: LedgerViews, ids: IDFingerprints, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = CheckpointWriter(sink: sink)
        w.out.append(contentsOf: magic)
        w.int(views.events); w.int(views.headSeq); w.digest(views.headHash)
        w.uuid(ids.seed)
        w.int(ids.count)
        for (n, fingerprint) in ids.sorted.enumerated() {
            w.word(fingerprint)
            if n & 0xFFF == 0 { w.flushIfFull() }
        }
        w.int(views.users.records.count)
        for r in views.users.records {
            w.uuid(r.uid); w.uuid(r.registration); w.text(r.email, in: views.users.texts); w.optionalText(r.userName, in: views.users.texts)
            w.optionalUUID(r.profileImage); w.optionalTime(r.createdAt); w.byte(UserRow.Status.allCases.firstIndex(of: r.status)!)
            w.int(r.emailSeq); w.byte(r.emailVerified ? 1 : 0)
            w.flushIfFull()
        }
        w.int(views.sessions.records.count)
        for r in views.sessions.records {
            w.uuid(r.session); w.uuid(r.uid); w.time(r.startedAt); w.time(r.expiresAt); w.optionalTime(r.endedAt)
            w.flushIfFull()
        }
        w.int(views.images.records.count)
        for r in views.images.records {
            w.uuid(r.image); w.uuid(r.uid); w.byte(ImageContentType.allCases.firstIndex(of: r.contentType)!); w.int(r.bytes)
            w.digest(r.sha256); w.time(r.storedAt); w.byte(ImageRow.Status.allCases.firstIndex(of: r.status)!)
            w.flushIfFull()
        }
        w.int(views.registrations.count)
        for s in views.registrations.lazyRows {
            w.uuid(s.id); w.optionalTime(s.startedAt); w.optionalTime(s.lastAt); w.optionalString(s.email); w.optionalUUID(s.uidBits)
            w.byte((s.accountLive ? 1 : 0) | (s.withImage ? 2 : 0) | (s.imageLive ? 4 : 0) | (s.profileWritten ? 8 : 0))
            w.optionalUUID(s.imageBits)
            if let failure = s.failure {
                w.byte(1); w.byte(RegistrationStep.allCases.firstIndex(of: failure.step)!); w.string(failure.reason)
                w.string(failure.message); w.optionalString(failure.email); w.optionalString(failure.uid)
            } else {
                w.byte(0)
            }
            w.int(s.compensations.count)
            for type in s.compensations { w.byte(EventType.allCases.firstIndex(of: type)!) }
            w.int(s.version)
            w.flushIfFull()
        }
        w.int(views.signIns.count)
        for row in views.signIns.lazyRows {
            w.string(row.email); w.int(row.failures); w.int(row.recentFailures.count)
            for time in row.recentFailures { w.time(time) }
            w.flushIfFull()
        }
        w.int(views.users.movedAway.count)
        for (email, uid) in views.users.movedAway.sorted(by: { $0.key < $1.key }) { w.string(email.text); w.uuid(uid) }
        w.int(views.ruleBreaks.count)
        for broken in views.ruleBreaks {
            w.byte(RuleBreak.Kind.allCases.firstIndex(of: broken.kind)!); w.int(broken.seq); w.uuid(broken.uid)
            w.flushIfFull()
        }
        w.int(views.accountChanges.changes.count)
        for row in views.accountChanges.changes {
            w.int(row.seq); w.time(row.at); w.uuid(row.uid); w.string(row.email)
            w.byte(AccountChangeView.Change.allCases.firstIndex(of: row.change)!); w.optionalString(row.reason); w.optionalString(row.newEmail)
            w.flushIfFull()
        }
        w.int(views.accountChanges.revoked.count)
        for row in views.accountChanges.revoked {
            w.int(row.seq); w.time(row.at); w.uuid(row.uid); w.uuid(row.session); w.string(row.reason)
            w.flushIfFull()
        }
        w.flush()
    }

    // MARK: - Pieces

    private mutating func flushIfFull() { if out.count >= 1 << 20 { flush() } }

    private mutating func flush() {
        out.withUnsafeBytes(sink)
        out.removeAll(keepingCapacity: true)
    }

    private mutating func byte(_ value: Int) { out.append(UInt8(truncatingIfNeeded: value)) }

    private mutating func word(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }

    private mutating func int(_ value: Int) { word(UInt64(bitPattern: Int64(value))) }

    private mutating func time(_ time: Timestamp) { word(UInt64(bitPattern: time.millis)) }

    private mutating func uuid(_ id: UUIDBits) { word(id.high); word(id.low) }

    private mutating func digest(_ digest: Digest32) { word(digest.a); word(digest.b); word(digest.c); word(digest.d) }

    private mutating func string(_ text: String) {
        int(text.utf8.count)
        out.append(contentsOf: text.utf8)
    }

    private mutating func text(_ ref: TextArena.Ref, in texts: TextArena) {
        texts.withBytes(ref) { bytes in
            int(bytes.count)
            out.append(contentsOf: bytes)
        }
    }

    private mutating func optionalText(_ ref: TextArena.Ref, in texts: TextArena) {
        if ref.isNone { byte(0) } else { byte(1); text(ref, in: texts) }
    }

    private mutating func optionalString(_ text: String?) {
        if let text { byte(1); string(text) } else { byte(0) }
    }

    private mutating func optionalUUID(_ id: UUIDBits?) {
        if let id { byte(1); uuid(id) } else { byte(0) }
    }

    private mutating func optionalTime(_ time: Timestamp?) {
        if let time { byte(1); self.time(time) } else { byte(0) }
    }
}
