// MARK: - SubjectID

/// Whose personal data a member is: the owner of one data key, forgotten all at once by destroying
/// that key. Two kinds, both ids that are not themselves personal data:
///
/// - `account-<uid>`: everything about one account (every email it held, its username, its
///   password hashes, an operator's reason about it);
/// - `address-<YYYY-MM-DD>`: the addresses of people who held no account, by the UTC day of the
///   event (sign-in failures, rejected registrations), so that credential stuffing does not mint a
///   key per guess. Once a day's key is erased (`ledger erase`), that day's later events go to its
///   successor `address-<YYYY-MM-DD>.1`, then `.2`, … (an erased key is never made again).
///
/// The text is ASCII, at most `maxLength` bytes (44 for an account, 18 for a day): it fits a slot
/// of the key store (`KeyStore`).
public struct SubjectID: Hashable, Sendable, CustomStringConvertible {
    /// The id as written in an encrypted member and in the key store.
    public let text: String

    /// The longest subject id a key-store slot holds, in bytes.
    public static let maxLength = 64

    /// The subject of the account `uid` (a lowercase UUID).
    public static func account(_ uid: UUIDBits) -> SubjectID { SubjectID(unchecked: "account-" + uid.uuidString) }

    /// The subject of the addresses that held no account on the UTC day of `time`.
    public static func address(on time: Timestamp) -> SubjectID {
        SubjectID(unchecked: "address-" + String(time.rfc3339.prefix(10)))
    }

    /// The subject spelled `text`, or nil unless it is `account-<lowercase uuid>` or
    /// `address-<YYYY-MM-DD>` with a real calendar date.
    public init?(_ text: String) {
        var bytes = text
        guard bytes.withUTF8({ Self.isAccountID($0) || Self.isAddressID($0) }) else { return nil }
        self.text = text
    }

    private init(unchecked text: String) { self.text = text }

    /// `init?(_:)` of the id given as its UTF-8 bytes (read in place from a log line); an account's
    /// id is checked byte by byte (`account-` and a lowercase UUID), without building strings first.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.isAccountID(bytes) || Self.isAddressID(bytes) else { return nil }
        self.init(unchecked: String(decoding: bytes, as: UTF8.self))
    }

    /// True when `bytes` spell an address subject: `address-`, a real calendar date `YYYY-MM-DD`,
    /// then nothing or `.N` (N ≥ 1 without leading zeros, at most `maxLength` bytes in all). Read
    /// as bytes: a sign-in failure's member is checked on every line that has one.
    private static func isAddressID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 18, bytes.count <= maxLength, hasPrefix(bytes, addressPrefix) else { return false }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + count) {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(8, 4), bytes[12] == UInt8(ascii: "-"), let month = number(13, 2), bytes[15] == UInt8(ascii: "-"),
              let day = number(16, 2), (1...12).contains(month), day >= 1, day <= Timestamp.daysIn(month: month, year: year)
        else { return false }
        guard bytes.count > 18 else { return true }
        // `.N`: digits only, no leading zero, within Int.
        guard bytes[18] == UInt8(ascii: "."), bytes.count > 19, bytes[19] != UInt8(ascii: "0") else { return false }
        var n = 0
        for byte in bytes[19...] {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return false }
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(digit))
            guard !o1, !o2 else { return false }
            n = sum
        }
        return true
    }

    /// The account whose subject id `bytes` spell (`account-` and a lowercase UUID, the rule
    /// `init?(utf8:)` applies), read without making a string; nil for any other bytes.
    public static func account(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UUIDBits? {
        guard bytes.count == 44, hasPrefix(bytes, accountPrefix) else { return nil }
        return UUIDBits(uuidBytes: UnsafeBufferPointer(rebasing: bytes[8...]))
    }

    /// True when `bytes` are `account-` and a lowercase UUID (44 bytes): `UUIDBits(uuidBytes:)`
    /// takes exactly the lowercase spelling.
    private static func isAccountID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        account(utf8: bytes) != nil
    }

    /// `account-` and `address-` as the little-endian words of their eight bytes.
    private static let accountPrefix = word("account-"), addressPrefix = word("address-")

    private static func word(_ text: StaticString) -> UInt64 {
        UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt64.self)
    }

    /// True when `bytes` (at least eight) start with the eight bytes of `prefix`.
    @inline(__always)
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: UInt64) -> Bool {
        UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self) == prefix
    }

    /// The next subject of the same day once this one's key is erased: `.1` after none, `.N+1`
    /// after `.N`; nil for an account (an erased account has no successor).
    public var successor: SubjectID? {
        guard kind == .address else { return nil }
        let rest = text.dropFirst(8 + 10)
        let next = rest.isEmpty ? 1 : (Int(rest.dropFirst()) ?? 0) + 1
        return SubjectID(unchecked: String(text.prefix(8 + 10)) + ".\(next)")
    }

    /// The account of an account subject; nil for an address.
    public var account: UUIDBits? { kind == .account ? UUIDBits(uuid: String(text.dropFirst(8))) : nil }

    /// `account`, read in place from the id's bytes (no string made on the way).
    public var accountBits: UUIDBits? {
        guard text.utf8.count == 44 else { return nil }
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.starts(with: "account-".utf8) ? UUIDBits(uuidBytes: UnsafeBufferPointer(rebasing: bytes[8...])) : nil
        } ?? account
    }

    /// The UTC day of an address subject (`YYYY-MM-DD`); nil for an account.
    public var day: String? { kind == .address ? String(text.dropFirst(8).prefix(10)) : nil }

    /// The kind of subject.
    public var kind: Kind { text.hasPrefix("account-") ? .account : .address }

    /// The id.
    public var description: String { text }

    /// The two kinds of subject.
    public enum Kind: Sendable {
        /// One account's data.
        case account
        /// One day's addresses that held no account.
        case address
    }
}
