// MARK: - MemberKind

/// What one member of a payload's `data` holds. Each kind has one rule (`problem(_:)` for strings),
/// used by both readers: `DataReader` over a decoded `JSONObject` and `MemberSlots` in place.
public enum MemberKind: Sendable {
    /// Any string.
    case text
    /// A non-empty string.
    case nonEmptyText
    /// A normalized email: non-empty, without capitals.
    case email
    /// A crypt(3) string in modular crypt format (`$y$…`).
    case cryptHash
    /// A kebab-case code (`^[a-z0-9]+(-[a-z0-9]+)*$`).
    case code
    /// A lowercase UUID.
    case uuid
    /// 64 lowercase hex digits.
    case sha256
    /// A canonical RFC 3339 UTC time with milliseconds.
    case timestamp
    /// A log's head as `SEQ:HASH` (a seq of at least 1, a colon, 64 lowercase hex digits).
    case anchor
    /// A non-negative integer.
    case count
    /// A boolean.
    case flag
    /// One of the raw values of an enumeration.
    case oneOf(any MemberChoice.Type)
    /// `prefix` followed by the value of the member at `member` (a cross-member rule).
    case prefixed(StaticString, member: Int)
    /// The subject of one day's addresses: `address-<YYYY-MM-DD>` or `address-<YYYY-MM-DD>.<N>` (`SubjectID`).
    case addressSubject

    /// True when the value is a JSON string.
    var isText: Bool {
        switch self {
        case .count, .flag: false
        default: true
        }
    }

    /// What is wrong with the string value `bytes` (UTF-8), or nil when it is fine. `.prefixed` is
    /// checked by the reader, which knows the other member.
    func problem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch self {
        case .text, .count, .flag, .prefixed: nil
        case .nonEmptyText: bytes.isEmpty ? "must not be empty" : nil
        case .email:
            bytes.isEmpty ? "must not be empty" : TextRules.isLowercase(bytes) ? nil : "must be normalized to lowercase"
        case .cryptHash:
            bytes.isEmpty ? "must not be empty" : TextRules.isCryptHash(bytes) ? nil : "must be a crypt(3) string like $y$…"
        case .code: TextRules.isKebabCase(bytes) ? nil : "must be a kebab-case code"
        case .addressSubject:
            SubjectID(String(decoding: bytes, as: UTF8.self)).map { $0.kind == .address } == true
                ? nil : "must be an address subject, address-<YYYY-MM-DD> or address-<YYYY-MM-DD>.<N>"
        case .uuid: UUIDBits(uuidBytes: bytes) == nil ? "must be a lowercase UUID" : nil
        case .sha256: Digest32(hexBytes: bytes) == nil ? "must be 64 lowercase hex digits" : nil
        case .timestamp:
            Timestamp(canonicalBytes: bytes) == nil
                ? "must be an RFC 3339 UTC time with milliseconds, e.g. 2026-11-29T15:54:00.123Z" : nil
        case .anchor:
            Head(anchor: String(decoding: bytes, as: UTF8.self)) == nil ? "must be SEQ:HASH (a seq of at least 1, 64 lowercase hex digits)" : nil
        case .oneOf(let choices):
            choices.choice(spelledBy: bytes) == nil ? "must be one of \(choices.rawValues.map { "`\($0)`" }.joined(separator: ", "))" : nil
        }
    }

    /// The type a value of this kind must have, for the message about a value of another type.
    var typeName: String {
        switch self {
        case .count: "an integer"
        case .flag: "a boolean"
        default: "a string"
        }
    }
}

// MARK: - MemberChoice

/// An enumeration a `.oneOf` member holds, spelled by its raw values.
public protocol MemberChoice: RawRepresentable<String>, CaseIterable, Sendable {}

extension MemberChoice {
    /// Every raw value, in declaration order.
    static var rawValues: [String] { allCases.map(\.rawValue) }

    /// The case spelled by the UTF-8 `value`, if any.
    static func choice(spelledBy value: UnsafeBufferPointer<UInt8>) -> Self? {
        Self(rawValue: String(decoding: value, as: UTF8.self))
    }
}

// MARK: - MemberPresence

/// Whether a member may be absent or null.
public enum MemberPresence: Sendable {
    /// Present, not null.
    case required
    /// Absent, or present and not null.
    case optional
    /// Present, possibly null.
    case nullable
    /// Absent, null or a value.
    case optionalOrNull

    /// True when the member may be left out.
    var allowsAbsent: Bool { self == .optional || self == .optionalOrNull }
    /// True when the member may be null.
    var allowsNull: Bool { self == .nullable || self == .optionalOrNull }
}

// MARK: - MemberRule

/// One member of a payload: its name, kind and presence.
public struct MemberRule: Sendable {
    /// The name as written in the source (compared in place).
    let spelling: StaticString
    /// `nameKey(spelling)`: most other names differ in it.
    let nameKey: UInt32
    /// What it holds.
    public let kind: MemberKind
    /// Whether it may be absent or null.
    public let presence: MemberPresence

    /// A rule from its parts.
    public init(_ name: StaticString, _ kind: MemberKind, _ presence: MemberPresence = .required) {
        spelling = name; self.kind = kind; self.presence = presence
        nameKey = Self.nameKey(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// The name in `data`.
    public var name: String { spelling.description }

    /// The name's UTF-8 bytes.
    var nameBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: spelling.utf8Start, count: spelling.utf8CodeUnitCount) }

    /// The length, first and last byte of a name, packed.
    @inline(__always)
    static func nameKey(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let first = name.first, let last = name.last else { return 0 }
        return UInt32(truncatingIfNeeded: name.count) << 16 | UInt32(first) << 8 | UInt32(last)
    }
}

// MARK: - PayloadSchema

/// The members of one payload type, declared once (by its `Member` enum) and read by both readers.
/// The members are checked in declaration order, so the first problem named is the same for both.
public struct PayloadSchema<Member: PayloadMember>: Sendable {
    /// Rule `i` is that of the member whose raw value is `i`.
    public let rules: [MemberRule]

    /// The schema of `Member`'s cases.
    public init() {
        let cases = Array(Member.allCases)
        precondition(cases.count <= MemberSlots.capacity && cases.enumerated().allSatisfy { $0.offset == $0.element.rawValue },
                     "members are numbered 0, 1, … in order, at most \(MemberSlots.capacity)")
        rules = cases.map(\.rule)
    }

    /// The rule of `member`.
    subscript(member: Member) -> MemberRule { rules[member.rawValue] }
}

/// The members of one payload type: numbered from 0 in order, each with its rule.
public protocol PayloadMember: CaseIterable, Sendable {
    /// The member's position.
    var rawValue: Int { get }
    /// How the member is named and checked.
    var rule: MemberRule { get }
}
