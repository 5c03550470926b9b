// MARK: - LineFacts

/// What replay needs from one line — the event as the views fold it, the id, `prev` and `hash` as
/// bits — read in place from a line spelled as ledger writes it, with no envelope or JSON tree built.
public struct LineFacts: Sendable {
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

    /// Facts from their parts.
    public init(event: ViewEvent, id: UUIDBits, prev: Digest32, hash: Digest32, bodyLength: Int) {
        self.event = event; self.id = id; self.prev = prev; self.hash = hash; self.bodyLength = bodyLength
    }
}

extension LineCodec {
    /// The facts of a line whose envelope is spelled exactly as ledger writes it and whose `data`
    /// is a flat object of known members that passes every check of its type's decoder; nil for
    /// anything else (valid or not), which the caller then reads with `decode` for the verdict. A
    /// line that gives facts gives the same event through `decode` and `ChainChecker.prepare`.
    public static func decodeFacts(_ line: UnsafeBufferPointer<UInt8>) -> LineFacts? {
        var r = FactCursor(line)
        var slots = DataSlots()
        guard r.expect(#"{"seq":"#), let seq = r.positiveInt(),
              r.expect(#","id":""#), let id = r.uuid(),
              r.expect(#"","at":""#), let at = r.timestamp(),
              r.expect(#"","type":""#), let type = r.eventType(),
              r.expect(#","v":"#), let v = r.positiveInt(), v == type.currentVersion,
              r.expect(#","stream":""#), let (category, stream) = r.stream(), category == type.category,
              r.expect(#","data":"#), r.dataObject(into: &slots),
              let fact = slots.fact(of: type, in: line)
        else { return nil }
        let bodyLength = line.count - suffixLength
        guard r.expect(#","prev":""#), let prev = r.digest(), r.expect("\""), r.index == bodyLength,
              r.expect(#","hash":""#), let hash = r.digest(), r.expect("\"}"), r.index == line.count
        else { return nil }
        return LineFacts(event: ViewEvent(seq: seq, at: at, category: category, stream: stream, fact: fact),
                         id: id, prev: prev, hash: hash, bodyLength: bodyLength)
    }
}

// MARK: - FactCursor

/// Reads the envelope of a canonical line in place.
struct FactCursor {
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

    /// A catalogue type name and its closing quote.
    mutating func eventType() -> EventType? {
        for type in EventType.allCases {
            let name = type.wireName
            if index + name.count < bytes.count, bytes[index + name.count] == UInt8(ascii: "\""),
               equal(bytes.baseAddress! + index, name) {
                index += name.utf8CodeUnitCount + 1
                return type
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
        else { return nil }
        guard let id = uuid(), expect("\"") else { return nil }
        return (category, id)
    }

    /// Locates the members of the flat `data` object at the cursor in `slots` (see `DataSlots`);
    /// false when it is not one. In place: returning the 18 slots copied them twice per line.
    mutating func dataObject(into slots: inout DataSlots) -> Bool {
        guard let end = slots.scan(bytes, from: index) else { return false }
        index = end
        return true
    }
}

// MARK: - Type names

extension EventType {
    /// The wire name as a static string (compared in place).
    var wireName: StaticString {
        switch self {
        case .accountCreated: "AccountCreated"
        case .imageStored: "ImageStored"
        case .profileWritten: "ProfileWritten"
        case .failed: "Failed"
        case .imageDeleted: "ImageDeleted"
        case .accountDeleted: "AccountDeleted"
        case .sessionStarted: "SessionStarted"
        case .sessionEnded: "SessionEnded"
        case .signInFailed: "SignInFailed"
        }
    }
}

extension StaticString {
    /// The number of UTF-8 bytes (shorthand).
    var count: Int { utf8CodeUnitCount }
}

/// True when the bytes at `pointer` spell `literal` (the caller checked there are enough).
@inline(__always)
func equal(_ pointer: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
    let start = literal.utf8Start
    for k in 0..<literal.utf8CodeUnitCount where pointer[k] != start[k] { return false }
    return true
}
