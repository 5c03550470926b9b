// MARK: - SubjectID

/// Whose personal data a member is: the owner of one data key, forgotten all at once by destroying
/// that key. Two kinds, both ids that are not themselves personal data:
///
/// - `account-<uid>`: everything about one account (every email it held, its username, its
///   password hashes, an operator's reason about it);
/// - `address-<YYYY-MM-DD>`: the addresses of people who held no account, by the UTC day of the
///   event (sign-in failures, rejected registrations), so that credential stuffing does not mint a
///   key per guess.
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
        if text.hasPrefix("account-") {
            guard let uid = UUIDBits(uuid: String(text.dropFirst(8))), uid.uuidString == text.dropFirst(8) else { return nil }
        } else if text.hasPrefix("address-") {
            let day = String(text.dropFirst(8))
            guard day.utf8.count == 10, let midnight = Timestamp(rfc3339: day + "T00:00:00.000Z"),
                  midnight.rfc3339.hasPrefix(day) else { return nil }
        } else {
            return nil
        }
        self.text = text
    }

    private init(unchecked text: String) { self.text = text }

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
