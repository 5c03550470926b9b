// MARK: - UserRow

/// A user as the log tells it.
public struct UserRow: Equatable, Sendable {
    /// Lifecycle of an account.
    public enum Status: String, Sendable, CaseIterable {
        /// Account created, profile not yet written.
        case pending
        /// Profile written.
        case active
        /// Account deleted (compensation).
        case deleted
    }

    /// The user id.
    public var uid: String
    /// The normalized email.
    public var email: String
    /// The display name (nil while pending).
    public var userName: String?
    /// The profile image (nil for the default image).
    public var profileImageName: String?
    /// From `ProfileWritten` (nil while pending).
    public var createdAt: Timestamp?
    /// The status.
    public var status: Status
    /// The registration that created it.
    public var registration: String
}

// MARK: - UserView

/// The users view: a fold over registration events.
public struct UserView: Equatable, Sendable {
    /// Users by uid.
    public internal(set) var byUID: [String: UserRow] = [:]
    /// Creation order of uids.
    public internal(set) var order: [String] = []
    /// Live (pending or active) accounts by email.
    public internal(set) var liveByEmail: [String: String] = [:]

    /// An empty view.
    public init() {}

    /// Applies one event.
    public mutating func apply(_ event: RecordedEvent) {
        switch event.event {
        case .accountCreated(let e):
            let registration = StreamName.parse(event.stream)?.id ?? event.stream
            if byUID[e.uid] == nil { order.append(e.uid) }
            byUID[e.uid] = UserRow(uid: e.uid, email: e.email, userName: nil, profileImageName: nil, createdAt: nil,
                                   status: .pending, registration: registration)
            liveByEmail[e.email] = e.uid
        case .profileWritten(let e):
            guard var row = byUID[e.uid] else { return }
            row.userName = e.userName
            row.profileImageName = e.profileImageName
            row.createdAt = e.createdAt
            if row.status != .deleted { row.status = .active }
            byUID[e.uid] = row
        case .accountDeleted(let e):
            guard var row = byUID[e.uid] else { return }
            row.status = .deleted
            byUID[e.uid] = row
            if liveByEmail[row.email] == e.uid { liveByEmail[row.email] = nil }
        default:
            break
        }
    }

    /// Users in creation order.
    public var rows: [UserRow] { order.compactMap { byUID[$0] } }

    /// The live account with `email`, if any.
    public func live(email: String) -> UserRow? { liveByEmail[email].flatMap { byUID[$0] } }

    /// Checks the view's invariants; returns the violations (empty when sound).
    public func invariantViolations() -> [String] {
        var out: [String] = []
        for row in byUID.values {
            if row.status == .active && row.createdAt == nil { out.append("active user \(row.uid) has no profile") }
            if row.status != .deleted && liveByEmail[row.email] != row.uid { out.append("live user \(row.uid) is not indexed by email") }
        }
        for (email, uid) in liveByEmail where byUID[uid]?.status == .deleted || byUID[uid]?.email != email {
            out.append("email \(email) indexes a user that is not live")
        }
        if order.count != byUID.count { out.append("order and users differ") }
        return out
    }
}
