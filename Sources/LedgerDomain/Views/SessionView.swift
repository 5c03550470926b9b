// MARK: - SessionRow

/// A session as the log tells it; `status` depends on the as-of time.
public struct SessionRow: Equatable, Sendable {
    /// Status at a given instant.
    public enum Status: String, Sendable, CaseIterable {
        /// Not ended and not expired.
        case active
        /// Ended by logout or account deletion.
        case ended
        /// `expiresAt` is not after the as-of time.
        case expired
    }

    /// The session id.
    public var sessionId: String
    /// The user.
    public var uid: String
    /// Event time of `SessionStarted`.
    public var startedAt: Timestamp
    /// When it expires.
    public var expiresAt: Timestamp
    /// When it ended (nil until then).
    public var endedAt: Timestamp?
    /// The token's hash (never shown by the read commands).
    public var tokenHash: String

    /// The status at `asOf`.
    public func status(at asOf: Timestamp) -> Status {
        if endedAt != nil { return .ended }
        return expiresAt > asOf ? .active : .expired
    }
}

// MARK: - SessionView

/// The sessions view.
public struct SessionView: Equatable, Sendable {
    /// Sessions by id.
    public internal(set) var byID: [String: SessionRow] = [:]
    /// Start order.
    public internal(set) var order: [String] = []
    /// Session ids per user, so deleting an account touches only its sessions.
    var sessionsByUID: [String: [String]] = [:]

    /// An empty view.
    public init() {}

    /// Applies one event. Deleting an account ends its sessions.
    public mutating func apply(_ event: RecordedEvent) {
        switch event.event {
        case .sessionStarted(let e):
            if byID[e.sessionId] == nil {
                order.append(e.sessionId)
                sessionsByUID[e.uid, default: []].append(e.sessionId)
            }
            byID[e.sessionId] = SessionRow(sessionId: e.sessionId, uid: e.uid, startedAt: event.at, expiresAt: e.expiresAt,
                                           endedAt: nil, tokenHash: e.tokenHash)
        case .sessionEnded(let e):
            if byID[e.sessionId]?.endedAt == nil { byID[e.sessionId]?.endedAt = event.at }
        case .accountDeleted(let e):
            // Only this user's sessions: a scan of every session here would make replay quadratic.
            for id in sessionsByUID[e.uid] ?? [] where byID[id]?.endedAt == nil { byID[id]?.endedAt = event.at }
        default:
            break
        }
    }

    /// Sessions in start order.
    public var rows: [SessionRow] { order.compactMap { byID[$0] } }

    /// Checks the view's invariants; returns the violations.
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for row in byID.values {
            if let ended = row.endedAt, ended < row.startedAt { out.append("session \(row.sessionId) ended before it started") }
        }
        if order.count != byID.count { out.append("order and sessions differ") }
        return out
    }
}
