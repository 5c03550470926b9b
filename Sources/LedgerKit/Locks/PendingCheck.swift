import LedgerDomain

// MARK: - PendingCheck

/// A password check announced under its email's sign-in lock before it runs: the ids its outcome
/// will be appended under. A holder that finds one left behind (its process died, or its outcome
/// could not be appended) counts it, and the ids make that count happen once: a failure already in
/// `signin-<attempt>`, or a session already started as `session-<sessionId>`, is not counted again.
public struct PendingCheck: Equatable, Sendable {
    /// The lowercase UUID of the `signin` stream a wrong password's `SignInFailed` goes to.
    public var attempt: String
    /// The lowercase UUID of the session the right password starts.
    public var sessionId: String
    /// For an account command (change the password or the email, delete): its account and that
    /// account stream's version when the check was announced. The right password's outcome appends
    /// to that stream under the same lock, so the stream's next event, when it is such an outcome
    /// (`CheckedPasswordOutcome`), settles the check by the log whether or not the marker's removal
    /// reached the disk.
    public var account: AccountVersion?

    /// A check from its ids.
    public init(attempt: String, sessionId: String, account: AccountVersion? = nil) {
        self.attempt = attempt; self.sessionId = sessionId; self.account = account
    }

    /// The marker as stored: `<attempt> <sessionId>[ <uid>:<version>]\n` (ASCII, at most 128 bytes).
    public var marker: [UInt8] { Array("\(attempt) \(sessionId)\(account.map { " " + $0.text } ?? "")\n".utf8) }

    /// The check a stored marker names; nil for anything else (e.g. the part of a marker whose write
    /// never completed: its check never ran, since a check runs only once its marker is durable).
    public init?(marker: [UInt8]) {
        guard marker.last == UInt8(ascii: "\n") else { return nil }
        let ids = String(decoding: marker.dropLast(), as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard ids.count == 2 || ids.count == 3, ids.prefix(2).allSatisfy({ Identifiers.isLowercaseUUID(String($0)) }) else { return nil }
        let account = ids.count == 3 ? AccountVersion(text: String(ids[2])) : nil
        if ids.count == 3, account == nil { return nil }
        self.init(attempt: String(ids[0]), sessionId: String(ids[1]), account: account)
    }
}

// MARK: - AccountVersion

/// An account stream's version at a moment: `<uid>:<version>` in a marker.
public struct AccountVersion: Equatable, Sendable {
    /// The account's lowercase UUID.
    public var uid: String
    /// The number of events its stream held.
    public var version: Int

    /// A version from its parts.
    public init(uid: String, version: Int) { self.uid = uid; self.version = version }

    /// `<uid>:<version>`.
    public var text: String { "\(uid):\(version)" }

    /// The version `text` spells; nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, Identifiers.isLowercaseUUID(String(parts[0])), let version = Int(parts[1]), version >= 0,
              String(version) == parts[1] else { return nil }
        self.init(uid: String(parts[0]), version: version)
    }
}
