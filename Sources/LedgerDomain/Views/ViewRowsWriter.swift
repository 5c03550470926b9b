// MARK: - ViewRowsWriter

/// Writes the views' `--json` rows (`[row,row,…]`) straight from their compact records, byte for byte
/// what `JSONWriter` writes for `.array(rows.map(\.json))` (a test holds the two together), without
/// spelling each row out as Strings first. Hands the bytes to `sink` about 64 KiB at a time.
public struct ViewRowsWriter {
    private var out: [UInt8] = []
    private let sink: (UnsafeRawBufferPointer) -> Void

    /// A writer that feeds `sink`.
    public init(sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        out.reserveCapacity(1 << 17)
    }

    // MARK: - Views

    /// The users view's rows.
    public static func users(_ view: UserView, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.records) { w, r in
            w.raw(#"{"uid":"#); w.uuid(r.uid); w.raw(#","email":"#); w.string(r.email)
            w.raw(#","userName":"#); w.optional(r.userName) { $0.string($1) }
            w.raw(#","profileImageName":"#); w.optional(r.profileImage) { $0.uuid($1) }
            w.raw(#","createdAt":"#); w.optional(r.createdAt) { $0.time($1) }
            w.raw(#","status":"#); w.string(r.status.rawValue); w.raw("}")
        }
    }

    /// The sessions view's rows, with their status at `asOf`.
    public static func sessions(_ view: SessionView, at asOf: Timestamp, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.records) { w, r in
            w.raw(#"{"sessionId":"#); w.uuid(r.session); w.raw(#","uid":"#); w.uuid(r.uid)
            w.raw(#","startedAt":"#); w.time(r.startedAt); w.raw(#","expiresAt":"#); w.time(r.expiresAt)
            w.raw(#","endedAt":"#); w.optional(r.endedAt) { $0.time($1) }
            w.raw(#","status":"#); w.string(SessionRow.status(endedAt: r.endedAt, expiresAt: r.expiresAt, at: asOf).rawValue); w.raw("}")
        }
    }

    /// The images view's rows.
    public static func images(_ view: ImageView, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.records) { w, r in
            w.raw(#"{"imageName":"#); w.uuid(r.image); w.raw(#","uid":"#); w.uuid(r.uid)
            w.raw(#","contentType":"#); w.string(r.contentType.rawValue); w.raw(#","bytes":"#); w.int(r.bytes)
            w.raw(#","sha256":"#); w.digest(r.sha256); w.raw(#","storedAt":"#); w.time(r.storedAt)
            w.raw(#","status":"#); w.string(r.status.rawValue); w.raw("}")
        }
    }

    /// The registrations view's rows.
    public static func registrations(_ view: RegistrationView, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        var w = ViewRowsWriter(sink: sink)
        w.array(view.states) { w, s in
            w.raw(#"{"registration":"#); w.uuid(s.id); w.raw(#","startedAt":"#); w.optional(s.startedAt) { $0.time($1) }
            w.raw(#","email":"#); w.optional(s.email) { $0.string($1) }
            w.raw(#","outcome":"#); w.string(s.outcome.rawValue)
            w.raw(#","step":"#); w.optional(s.failure) { $0.string($1.step.rawValue) }
            w.raw(#","reason":"#); w.optional(s.failure) { $0.string($1.reason) }
            w.raw(#","compensations":["#)
            for (k, type) in s.compensations.enumerated() {
                if k > 0 { w.raw(",") }
                w.string(type.rawValue)
            }
            w.raw("]}")
        }
    }

    // MARK: - Pieces

    private mutating func array<Rows: Collection>(_ rows: Rows, _ write: (inout ViewRowsWriter, Rows.Element) -> Void) {
        raw("[")
        for (k, row) in rows.enumerated() {
            if k > 0 { raw(",") }
            write(&self, row)
            if out.count >= 1 << 16 { flush() }
        }
        raw("]")
        flush()
    }

    private mutating func flush() {
        out.withUnsafeBytes(sink)
        out.removeAll(keepingCapacity: true)
    }

    private mutating func raw(_ literal: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func string(_ text: String) { JSONWriter.writeString(text, into: &out) }

    private mutating func int(_ value: Int) { out.append(contentsOf: String(value).utf8) }

    private mutating func uuid(_ bits: UUIDBits) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 38) { buffer in
            buffer[0] = 0x22; buffer[37] = 0x22
            bits.writeUUID(into: buffer.baseAddress! + 1)
            out.append(contentsOf: buffer)
        }
    }

    private mutating func digest(_ digest: Digest32) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 66) { buffer in
            buffer[0] = 0x22; buffer[65] = 0x22
            digest.writeHex(into: buffer.baseAddress! + 1)
            out.append(contentsOf: buffer)
        }
    }

    private mutating func time(_ time: Timestamp) {
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { buffer -> Bool in
            buffer[0] = 0x22; buffer[25] = 0x22
            guard time.writeRFC3339(into: buffer.baseAddress! + 1) else { return false }
            out.append(contentsOf: buffer)
            return true
        }
        if !written { string(time.rfc3339) }
    }

    private mutating func optional<Value>(_ value: Value?, _ write: (inout ViewRowsWriter, Value) -> Void) {
        if let value { write(&self, value) } else { raw("null") }
    }
}
