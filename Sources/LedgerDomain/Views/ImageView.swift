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

/// The images view, compact, in store order.
public struct ImageView: Equatable, Sendable {
    /// One image, compact.
    struct Record: Equatable, Sendable {
        // Ordered so the two one-byte fields share the last word (one per image).
        var image: UUIDBits
        var uid: UUIDBits
        var sha256: Digest32
        var bytes: Int
        var storedAt: Timestamp
        var contentType: ImageContentType
        var status: ImageRow.Status

        init(image: UUIDBits, uid: UUIDBits, contentType: ImageContentType, bytes: Int, sha256: Digest32,
             storedAt: Timestamp, status: ImageRow.Status) {
            self.image = image; self.uid = uid; self.sha256 = sha256; self.bytes = bytes; self.storedAt = storedAt
            self.contentType = contentType; self.status = status
        }

        var row: ImageRow {
            ImageRow(imageName: image.uuidString, uid: uid.uuidString, contentType: contentType, bytes: bytes,
                     sha256: sha256.hex, storedAt: storedAt, status: status)
        }
    }

    /// Images in store order.
    private(set) var records = ChunkedArray<Record>()
    /// Position in `records` by image name.
    private var index = PositionIndex()

    /// An empty view.
    public init() {}

    // MARK: - Fold

    /// Applies one event.
    public mutating func apply(_ event: ViewEvent) {
        switch event.fact {
        case .imageStored(let uid, let image, let contentType, let bytes, let sha256):
            upsert(Record(image: image, uid: uid, contentType: contentType, bytes: bytes, sha256: sha256, storedAt: event.at, status: .stored))
        case .imageDeleted(let image):
            if let at = position(of: image) { records[Int(at)].status = .deleted }
        default:
            break
        }
    }

    /// Applies one recorded event.
    public mutating func apply(_ event: RecordedEvent) { apply(ViewEvent(event)) }

    /// Inserts `record`, or replaces the one with its name in place.
    mutating func upsert(_ record: Record) {
        if let at = position(of: record.image) {
            records[Int(at)] = record
        } else {
            let at = Int32(records.count)
            records.append(record)
            let rows = records
            index.set(record.image, to: at) { rows[Int($0)].image }
        }
    }

    /// The position of the image named by `image`.
    func position(of image: UUIDBits) -> Int32? { index.find(image) { records[Int($0)].image } }

    // MARK: - Reads

    /// Images in store order.
    public var rows: [ImageRow] { records.map(\.row) }

    /// Calls `body` with each image whose status is `status`, in store order, spelled out one at a time.
    public func forEachRow(status: ImageRow.Status, _ body: (ImageRow) -> Void) {
        records.forEachInPlace { if $0.pointee.status == status { body($0.pointee.row) } }
    }

    /// Number of images.
    public var count: Int { records.count }

    /// Each image's status, in store order.
    public var statuses: [ImageRow.Status] { records.map(\.status) }

    /// The status of the image named `imageName` (nil when the log never stored it).
    public func status(of imageName: String) -> ImageRow.Status? {
        UUIDBits(uuid: imageName).flatMap(position(of:)).map { records[Int($0)].status }
    }

    /// Checks the view's invariants against the users view.
    public func invariantViolations(users: UserView) -> [String] {
        var out: [String] = []
        for (at, record) in records.enumerated() {
            if position(of: record.image) != Int32(at) { out.append("image \(record.image.uuidString) is not indexed") }
            guard record.status == .stored else { continue }
            switch users.status(of: record.uid) {
            case nil: out.append("stored image \(record.image.uuidString) has no owner")
            case .deleted?: out.append("stored image \(record.image.uuidString) belongs to a deleted user")
            default: break
            }
        }
        if index.count != records.count { out.append("index and images differ") }
        return out
    }
}

// MARK: - Lookup

extension ImageView {
    /// The image named `imageName`, if the log stored it.
    public func row(imageName: String) -> ImageRow? {
        UUIDBits(uuid: imageName).flatMap(position(of:)).map { records[Int($0)].row }
    }
}
