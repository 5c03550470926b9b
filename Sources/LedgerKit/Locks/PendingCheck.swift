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

    /// A check from its ids.
    public init(attempt: String, sessionId: String) { self.attempt = attempt; self.sessionId = sessionId }

    /// The marker as stored: `<attempt> <sessionId>\n` (ASCII).
    public var marker: [UInt8] { Array("\(attempt) \(sessionId)\n".utf8) }

    /// The check a stored marker names; nil for anything else (e.g. the part of a marker whose write
    /// never completed: its check never ran, since a check runs only once its marker is durable).
    public init?(marker: [UInt8]) {
        guard marker.last == UInt8(ascii: "\n") else { return nil }
        let ids = String(decoding: marker.dropLast(), as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard ids.count == 2, ids.allSatisfy({ Identifiers.isLowercaseUUID(String($0)) }) else { return nil }
        self.init(attempt: String(ids[0]), sessionId: String(ids[1]))
    }
}
