// MARK: - ViewRowsWriter

/// Writes the views' `--json` rows (`[row,row,…]`) straight from their compact records, byte for byte
/// what `JSONWriter` writes for `.array(rows.map(\.json))` (a test holds the two together), without
/// spelling each row out as Strings first. Writes into a fixed buffer and hands the bytes to `sink`
/// about 128 KiB at a time.
public struct ViewRowsWriter {
    private let buffer = RowBuffer()
    private let sink: (UnsafeRawBufferPointer) -> Void

    /// A writer that feeds `sink` (which must not keep the pointer it gets after it returns).
    public init(sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
    }

    // MARK: - Views

    /// The users view's rows.
    public static func users(_ view: UserView, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        let texts = view.texts
        w.array(view.records) { w, r in
            // An erased account (its email reads empty) shows null members and `"erased":true`.
            let erased = texts.withBytes(r.email) { ErasedText.isErased(utf8: $0) }
            w.raw(#"{"uid":"#); w.uuid(r.uid); w.raw(#","email":"#)
            if erased { w.raw("null") } else { w.text(r.email, in: texts) }
            w.raw(#","userName":"#)
            if erased || r.userName.isNone { w.raw("null") } else { w.text(r.userName, in: texts) }
            w.raw(#","profileImageName":"#); w.optional(r.profileImage) { $0.uuid($1) }
            w.raw(#","createdAt":"#); w.optional(r.createdAt) { $0.time($1) }
            w.raw(#","status":"#); w.string(r.status.rawValue)
            w.raw(r.emailVerified ? #","emailVerified":true"# : #","emailVerified":false"#)
            w.raw(erased ? #","erased":true}"# : "}")
        }
    }

    /// The sessions view's rows, with their status at `asOf` (only the active ones with `activeOnly`).
    public static func sessions(_ view: SessionView, at asOf: Timestamp, activeOnly: Bool = false,
                                sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        let row = { (w: inout ViewRowsWriter, r: SessionView.Record) in
            w.raw(#"{"sessionId":"#); w.uuid(r.session); w.raw(#","uid":"#); w.uuid(r.uid)
            w.raw(#","startedAt":"#); w.time(r.startedAt); w.raw(#","expiresAt":"#); w.time(r.expiresAt)
            w.raw(#","endedAt":"#); w.optional(r.endedAt) { $0.time($1) }
            w.raw(#","status":"#); w.raw(Self.quoted(SessionRow.status(endedAt: r.endedAt, expiresAt: r.expiresAt, at: asOf))); w.raw("}")
        }
        if activeOnly {
            w.array(view.records.lazy.filter { SessionRow.status(endedAt: $0.endedAt, expiresAt: $0.expiresAt, at: asOf) == .active }, row)
        } else {
            w.array(view.records, row)  // the digests' path: no filter in the loop
        }
    }

    /// The images view's rows.
    public static func images(_ view: ImageView, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.records) { w, r in
            w.raw(#"{"imageName":"#); w.uuid(r.image); w.raw(#","uid":"#); w.uuid(r.uid)
            w.raw(#","contentType":"#); w.string(r.contentType.rawValue); w.raw(#","bytes":"#); w.int(r.bytes)
            w.raw(#","sha256":"#); w.digest(r.sha256); w.raw(#","storedAt":"#); w.time(r.storedAt)
            w.raw(#","status":"#); w.raw(Self.quoted(r.status)); w.raw("}")
        }
    }

    /// The registrations view's rows (only those that did not complete with `failedOnly`: `audit`'s).
    public static func registrations(_ view: RegistrationView, failedOnly: Bool = false, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        let row = { (w: inout ViewRowsWriter, s: RegistrationRow) in
            w.raw(#"{"registration":"#); w.uuid(s.id); w.raw(#","startedAt":"#); w.optional(s.startedAt) { $0.time($1) }
            w.raw(#","email":"#); w.optional(s.email.flatMap { ErasedText.isErased($0) ? nil : $0 }) { $0.string($1) }
            if let email = s.email, ErasedText.isErased(email) { w.raw(#","erased":true"#) }
            w.raw(#","outcome":"#); w.raw(Self.quoted(s.outcome))
            w.raw(#","step":"#); w.optional(s.failure) { $0.string($1.step.rawValue) }
            w.raw(#","reason":"#); w.optional(s.failure) { $0.string($1.reason) }
            w.raw(#","compensations":["#)
            for (k, type) in s.compensations.enumerated() {
                if k > 0 { w.raw(",") }
                w.string(type.rawValue)
            }
            w.raw("]}")
        }
        if failedOnly {
            w.array(view.lazyRows(where: { $0.outcome != .completed }), row)
        } else {
            w.array(view.lazyRows, row)
        }
    }

    /// `audit`'s sign-in failures: `{"email","failures","locked"}` per email, locked as of `asOf`.
    public static func signInFailures(_ view: SignInView, at asOf: Timestamp, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.lazyRows) { w, row in
            w.raw(#"{"email":"#)
            if ErasedText.isErased(row.email) { w.raw(#"null,"erased":true"#) } else { w.string(row.email) }
            w.raw(#","failures":"#); w.int(row.failures)
            w.raw(view.lockedUntil(row, at: asOf) != nil ? #","locked":true}"# : #","locked":false}"#)
        }
    }

    // MARK: - Pieces

    private mutating func array<Rows: Collection>(_ rows: Rows, _ write: (inout ViewRowsWriter, Rows.Element) -> Void) {
        raw("[")
        for (k, row) in rows.enumerated() {
            if k > 0 { raw(",") }
            write(&self, row)
        }
        raw("]")
        flush()
    }

    /// Hands what is buffered to `sink`.
    private func flush() {
        guard buffer.count > 0 else { return }
        sink(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
        buffer.count = 0
    }

    /// The next `count` bytes of the buffer (`count` ≤ `RowBuffer.capacity`), to be filled by the caller.
    @inline(__always)
    private func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        assert(count <= RowBuffer.capacity, "room is for pieces that fit the buffer")
        if buffer.count + count > RowBuffer.capacity { flush() }
        defer { buffer.count += count }
        return buffer.base + buffer.count
    }

    /// Appends `bytes` (of any length).
    private func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= RowBuffer.capacity else {
            flush()
            sink(UnsafeRawBufferPointer(bytes))
            return
        }
        if bytes.count > 0 { Self.copy(bytes.baseAddress!, bytes.count, to: room(bytes.count)) }
    }

    private func raw(_ literal: StaticString) {
        let count = literal.utf8CodeUnitCount
        Self.copy(literal.utf8Start, count, to: room(count))
    }

    /// Copies `count` bytes; up to 32 with a few word moves in line (member names, statuses, ids and
    /// most emails), instead of a `memmove` call each: a row is a dozen such pieces.
    @inline(__always)
    private static func copy(_ from: UnsafePointer<UInt8>, _ count: Int, to out: UnsafeMutablePointer<UInt8>) {
        let source = UnsafeRawPointer(from), target = UnsafeMutableRawPointer(out)
        @inline(__always) func word(_ at: Int) { target.storeBytes(of: source.loadUnaligned(fromByteOffset: at, as: UInt64.self), toByteOffset: at, as: UInt64.self) }
        switch count {
        case 0..<8:
            for k in 0..<count { out[k] = from[k] }
        case 8...16:
            word(0); word(count - 8)  // the two may overlap: both write the source's bytes
        case 17...32:
            word(0); word(8); word(count - 16); word(count - 8)
        default:
            out.initialize(from: from, count: count)
        }
    }

    private func string(_ text: String) {
        var text = text
        if !text.withUTF8({ plain($0) }) { escaped(text) }
    }

    /// A text of `texts`, quoted and escaped as `string` writes it.
    private func text(_ ref: TextArena.Ref, in texts: TextArena) {
        if !texts.withBytes(ref, { plain($0) }) { escaped(texts.text(ref)) }
    }

    /// Writes `utf8` quoted when it has nothing to escape (ids, emails, codes, most names: copied
    /// as it is); false, having written nothing, when it has.
    private func plain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
        raw("\"")
        bytes(utf8)
        raw("\"")
        return true
    }

    private func escaped(_ text: String) {
        var escaped: [UInt8] = []
        JSONWriter.writeString(text, into: &escaped)
        escaped.withUnsafeBufferPointer { bytes($0) }
    }

    private func int(_ value: Int) {
        var text = String(value)
        text.withUTF8 { bytes($0) }
    }

    private func uuid(_ bits: UUIDBits) {
        let at = room(38)
        at[0] = 0x22; at[37] = 0x22
        bits.writeUUID(into: at + 1)
    }

    private func digest(_ digest: Digest32) {
        let at = room(66)
        at[0] = 0x22; at[65] = 0x22
        digest.writeHex(into: at + 1)
    }

    /// A time, quoted. Rows come in time order, so most share the day of the same column in the row
    /// before: the last two days' `YYYY-MM-DD` are kept (a session's start and its expiry, 30 days
    /// on, alternate), and only the time of day is spelled out again.
    private func time(_ time: Timestamp) {
        let (days, msOfDay) = time.millis.floorDivided(by: 86_400_000)
        let at = room(26)
        let raw = UnsafeMutableRawPointer(at)
        if days == buffer.day {
            raw.storeBytes(of: buffer.date.0, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: buffer.date.1, toByteOffset: 9, as: UInt16.self)
        } else if days == buffer.otherDay {
            raw.storeBytes(of: buffer.otherDate.0, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: buffer.otherDate.1, toByteOffset: 9, as: UInt16.self)
        } else {
            let (year, month, day) = Timestamp.civil(fromDays: days)
            guard (0...9999).contains(year) else {
                buffer.count -= 26
                return string(time.rfc3339)
            }
            digits(year, 4, at: at + 1); at[5] = 0x2D; digits(month, 2, at: at + 6); at[8] = 0x2D; digits(day, 2, at: at + 9)
            (buffer.otherDay, buffer.otherDate) = (buffer.day, buffer.date)
            buffer.day = days
            buffer.date = (raw.loadUnaligned(fromByteOffset: 1, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 9, as: UInt16.self))
        }
        at[0] = 0x22; at[11] = UInt8(ascii: "T")
        digits(msOfDay / 3_600_000, 2, at: at + 12); at[14] = 0x3A
        digits(msOfDay / 60_000 % 60, 2, at: at + 15); at[17] = 0x3A
        digits(msOfDay / 1000 % 60, 2, at: at + 18); at[20] = UInt8(ascii: ".")
        digits(msOfDay % 1000, 3, at: at + 21); at[24] = UInt8(ascii: "Z"); at[25] = 0x22
    }

    /// Writes the `width` low decimal digits of `value` (≥ 0) at `out`.
    @inline(__always)
    private func digits(_ value: Int64, _ width: Int, at out: UnsafeMutablePointer<UInt8>) {
        var value = value
        for k in stride(from: width - 1, through: 0, by: -1) {
            out[k] = UInt8(truncatingIfNeeded: 48 + value % 10)
            value /= 10
        }
    }

    // MARK: - Statuses

    /// A view-derived status, quoted, as a literal (not built as a String per row). An account's
    /// status is spelled from `AccountStatus.rawValue` instead, so a new status needs no case here.
    private static func quoted(_ status: SessionRow.Status) -> StaticString {
        switch status {
        case .active: #""active""#
        case .ended: #""ended""#
        case .expired: #""expired""#
        }
    }

    private static func quoted(_ status: ImageRow.Status) -> StaticString {
        switch status {
        case .stored: #""stored""#
        case .deleted: #""deleted""#
        }
    }

    private static func quoted(_ outcome: RegistrationState.Outcome) -> StaticString {
        switch outcome {
        case .completed: #""completed""#
        case .rejected: #""rejected""#
        case .compensated: #""compensated""#
        case .compensationPending: #""compensation-pending""#
        case .inProgress: #""in-progress""#
        }
    }

    private mutating func optional<Value>(_ value: Value?, _ write: (inout ViewRowsWriter, Value) -> Void) {
        if let value { write(&self, value) } else { raw("null") }
    }
}

// MARK: - RowBuffer

/// The writer's fixed output buffer.
private final class RowBuffer {
    /// Bytes held before a flush.
    static let capacity = 1 << 17
    let base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    var count = 0
    /// The day (since the epoch) of the last time written, and its `YYYY-MM-DD` as written (its
    /// first 8 and last 2 bytes).
    var day = Int64.min
    var date: (UInt64, UInt16) = (0, 0)
    /// The day spelled before `day`, and its date.
    var otherDay = Int64.min
    var otherDate: (UInt64, UInt16) = (0, 0)

    deinit { base.deallocate() }
}
