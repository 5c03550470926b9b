// MARK: - ReplayLine

/// What replay needs from one line — the event as the views fold it, the id, `prev` and `hash` as
/// bits — read in place from a line spelled as ledger writes it, with no envelope or JSON tree built.
public struct ReplayLine: Sendable {
    /// The fold input (seq, time, stream and payload).
    public var event: ViewEvent
    /// The line's `id`.
    public var id: UUIDBits
    /// The line's `prev`.
    public var prev: Digest32
    /// The line's declared `hash`.
    public var hash: Digest32
    /// Length of the hashed body (the bytes before `,"hash":"`).
    public var bodyLength: Int
    /// The line's place in its batch (`unmarked` on a batch of one line).
    public var batch: BatchMark

    /// A line from its parts.
    public init(event: ViewEvent, id: UUIDBits, prev: Digest32, hash: Digest32, bodyLength: Int, batch: BatchMark = .unmarked) {
        self.event = event; self.id = id; self.prev = prev; self.hash = hash; self.bodyLength = bodyLength; self.batch = batch
    }
}

extension LineCodec {
    /// The replay reading of a line whose envelope is spelled exactly as ledger writes it and whose
    /// `data` is a flat object of its schema's members that passes every rule of that schema; nil for
    /// anything else (valid or not), which the caller then reads with `decode` for the verdict. A
    /// line read here gives the same event through `decode` and `ChainChecker.prepare`.
    /// A data version 2 line's encrypted members are opened with `opener`, as the full path opens them.
    public static func readInPlace(_ line: UnsafeBufferPointer<UInt8>, opener: any PersonalDataOpener = SealedOpener()) -> ReplayLine? {
        withUnsafeTemporaryAllocation(of: ReplayLine.self, capacity: 1) { buffer in
            let read = buffer.baseAddress!
            return readInPlace(line, into: read, opener: opener) ? read.move() : nil
        }
    }

    /// `readInPlace(_:opener:)` written straight into `read` (uninitialized memory, initialized
    /// only when the answer is true): a scanner's batch keeps each line's reading where it lies,
    /// with no copy of it on the way.
    public static func readInPlace(_ line: UnsafeBufferPointer<UInt8>, into read: UnsafeMutablePointer<ReplayLine>,
                                   opener: any PersonalDataOpener = SealedOpener()) -> Bool {
        // Entries are read where they lie: copying one costs more than reading its line.
        let catalogue = InPlaceCatalogue.entries
        var r = LineCursor(line)
        guard r.expect(#"{"seq":"#), let seq = r.positiveInt(),
              r.expect(#","id":""#), let id = r.uuid(),
              r.expect(#"","at":""#), let at = r.timestamp(),
              r.expect(#"","type":""#), let entry = r.catalogueEntry(catalogue)
        else { return false }
        let type = catalogue[entry].type
        var batch = BatchMark.unmarked
        guard r.expect(#","v":"#), let v = r.positiveInt(), v == type.currentVersion || (v == 2 && PersonalMembers.rule(for: type) != nil),
              r.expect(#","stream":""#), let (category, stream) = r.stream(), type.belongs(in: category)
        else { return false }
        // Most lines have no `batch`: for them this is the `,"data":` check they need anyway.
        if !r.expect(#","data":"#) {
            guard r.expect(#","batch":["#), let index = r.positiveInt(), r.expect(","), let count = r.positiveInt(), r.expect("]"),
                  let mark = BatchMark(index: index, count: count), r.expect(#","data":"#)
            else { return false }
            batch = mark
        }
        return MemberSlots.withEmpty { slots in
            guard r.dataObject(into: &slots, rules: catalogue[entry].rules) else { return false }
            // A version 2 line's members are opened first (a version 1 line has none to open: an object there gives up).
            if v == 2, !slots.open(catalogue[entry], eventID: id, in: line, opener: opener) { return false }
            guard slots.satisfies(catalogue[entry].rules, in: line) else { return false }
            let bodyLength = line.count - suffixLength
            guard r.expect(#","prev":""#), let prev = r.digest(), r.expect("\""), r.index == bodyLength,
                  r.expect(#","hash":""#), let hash = r.digest(), r.expect("\"}"), r.index == line.count
            else { return false }
            read.initialize(to: ReplayLine(event: ViewEvent(seq: seq, at: at, category: category, stream: stream,
                                                            fact: catalogue[entry].payload.viewFact(slots, in: line)),
                                           id: id, prev: prev, hash: hash, bodyLength: bodyLength, batch: batch))
            return true
        }
    }
}

// MARK: - LineCursor

/// Reads the envelope of a canonical line in place.
struct LineCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Consumes `literal` when the bytes continue with it.
    @inline(__always)
    mutating func expect(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count, equal(bytes.baseAddress! + index, literal) else { return false }
        index += count
        return true
    }

    /// `count` bytes from here, consumed.
    @inline(__always)
    mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8>? {
        guard index + count <= bytes.count else { return nil }
        defer { index += count }
        return UnsafeBufferPointer(rebasing: bytes[index..<(index + count)])
    }

    /// A JSON integer of 1 to 18 digits without a leading zero, not followed by a fraction or exponent.
    mutating func positiveInt() -> Int? {
        guard index < bytes.count, bytes[index] >= UInt8(ascii: "1"), bytes[index] <= UInt8(ascii: "9") else { return nil }
        var value = 0, digits = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            guard digits < 18 else { return nil }
            value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
        return value
    }

    /// 36 bytes of a lowercase UUID.
    mutating func uuid() -> UUIDBits? { take(36).flatMap { UUIDBits(uuidBytes: $0) } }

    /// 24 bytes of a canonical timestamp.
    mutating func timestamp() -> Timestamp? { take(24).flatMap { Timestamp(canonicalBytes: $0) } }

    /// 64 lowercase hex bytes.
    mutating func digest() -> Digest32? { take(64).flatMap { Digest32(hexBytes: $0) } }

    /// The position in `entries` of the catalogue type named here, its closing quote consumed.
    mutating func catalogueEntry(_ entries: UnsafeBufferPointer<InPlaceCatalogue.Entry>) -> Int? {
        let rest = UnsafeBufferPointer(rebasing: bytes[index...])
        for position in entries.indices {
            let count = entries[position].wireName.count
            if count < rest.count, rest[count] == UInt8(ascii: "\""), entries[position].wireName.isPrefix(of: rest) {
                index += count + 1
                return position
            }
        }
        return nil
    }

    /// `<category>-<uuid>` and its closing quote.
    mutating func stream() -> (StreamCategory, UUIDBits)? {
        let category: StreamCategory
        if expect("registration-") { category = .registration }
        else if expect("session-") { category = .session }
        else if expect("signin-") { category = .signin }
        else if expect("account-") { category = .account }
        else if expect("migration-") { category = .migration }
        else { return nil }
        guard let id = uuid(), expect("\"") else { return nil }
        return (category, id)
    }

    /// Locates the members of the flat `data` object at the cursor in `slots` (see `MemberSlots`);
    /// false when it is not one of `rules`' members.
    mutating func dataObject(into slots: inout MemberSlots, rules: UnsafeBufferPointer<MemberRule>) -> Bool {
        guard let end = slots.scan(bytes, from: index, rules: rules) else { return false }
        index = end
        return true
    }
}

// MARK: - Literals

/// True when the bytes at `pointer` spell `literal` (the caller checked there are enough).
@inline(__always)
func equal(_ pointer: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
    let start = literal.utf8Start
    for k in 0..<literal.utf8CodeUnitCount where pointer[k] != start[k] { return false }
    return true
}

/// True when the 36 bytes at `a` and at `b` are the same (a UUID's text): eight bytes at a time.
@inline(__always)
func sameUUIDText(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> Bool {
    let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
    var differ: UInt64 = 0
    for offset in stride(from: 0, to: 32, by: 8) {
        differ |= x.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ y.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }
    differ |= UInt64(x.loadUnaligned(fromByteOffset: 32, as: UInt32.self) ^ y.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
    return differ == 0
}

/// True when `a` and `b` hold the same bytes.
@inline(__always)
func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    for k in 0..<a.count where a[k] != b[k] { return false }
    return true
}
