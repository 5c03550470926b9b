// MARK: - ImageRow

/// A stored profile image as the log tells it.
public struct ImageRow: Equatable, Sendable {
    /// Stored or deleted.
    public enum Status: String, Sendable, CaseIterable {
        /// The blob should exist.
        case stored
        /// The blob was removed.
        case deleted
    }

    /// The blob name.
    public var imageName: String
    /// The owner.
    public var uid: String
    /// The format.
    public var contentType: ImageContentType
    /// Size in bytes.
    public var bytes: Int
    /// SHA-256 of the bytes.
    public var sha256: String
    /// Event time of `ImageStored`.
    public var storedAt: Timestamp
    /// The status.
    public var status: Status
}

// MARK: - ImageView

/// The images view.
public struct ImageView: Equatable, Sendable {
    /// Images by name.
    public internal(set) var byName: [String: ImageRow] = [:]
    /// Store order.
    public internal(set) var order: [String] = []

    /// An empty view.
    public init() {}

    /// Applies one event.
    public mutating func apply(_ event: RecordedEvent) {
        switch event.event {
        case .imageStored(let e):
            if byName[e.imageName] == nil { order.append(e.imageName) }
            byName[e.imageName] = ImageRow(imageName: e.imageName, uid: e.uid, contentType: e.contentType, bytes: e.bytes,
                                           sha256: e.sha256, storedAt: event.at, status: .stored)
        case .imageDeleted(let e):
            byName[e.imageName]?.status = .deleted
        default:
            break
        }
    }

    /// Images in store order.
    public var rows: [ImageRow] { order.compactMap { byName[$0] } }

    /// Checks the view's invariants against the users view.
    public func invariantViolations(users: UserView) -> [String] {
        var out: [String] = []
        for row in byName.values where row.status == .stored {
            if users.byUID[row.uid] == nil { out.append("stored image \(row.imageName) has no owner") }
            if users.byUID[row.uid]?.status == .deleted { out.append("stored image \(row.imageName) belongs to a deleted user") }
        }
        if order.count != byName.count { out.append("order and images differ") }
        return out
    }
}
