// MARK: - ImageStored

/// A profile image's bytes were stored durably in the blob folder.
public struct ImageStored: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.imageStored
    /// The owner.
    public var uid: String
    /// The blob's name (a lowercase UUID).
    public var imageName: String
    /// `profile_image/<imageName>`, relative to the data directory.
    public var path: String
    /// The format found by magic bytes.
    public var contentType: ImageContentType
    /// The size in bytes.
    public var bytes: Int
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String

    /// The members of `data`; `path` must be `profile_image/<imageName>`.
    enum Member: Int, PayloadMember {
        case uid, imageName, contentType, bytes, sha256, path

        var rule: MemberRule {
            switch self {
            case .uid: MemberRule("uid", .uuid)
            case .imageName: MemberRule("imageName", .uuid)
            case .contentType: MemberRule("contentType", .oneOf(ImageContentType.self))
            case .bytes: MemberRule("bytes", .count)
            case .sha256: MemberRule("sha256", .sha256)
            case .path: MemberRule("path", .prefixed(ImageStored.pathPrefix, member: Member.imageName.rawValue))
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// The blob folder, relative to the data directory.
    static let pathPrefix: StaticString = "profile_image/"

    /// A payload from its members; `path` is derived from `imageName`.
    public init(uid: String, imageName: String, contentType: ImageContentType, bytes: Int, sha256: String) {
        self.uid = uid; self.imageName = imageName; self.path = Self.path(for: imageName)
        self.contentType = contentType; self.bytes = bytes; self.sha256 = sha256
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(uid: r.text(.uid), imageName: r.text(.imageName), contentType: r.choice(.contentType, ImageContentType.self),
                  bytes: r.int(.bytes), sha256: r.text(.sha256))
    }

    /// The blob path of `imageName` relative to the data directory.
    public static func path(for imageName: String) -> String { pathPrefix.description + imageName }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("uid", .string(uid)), ("imageName", .string(imageName)), ("path", .string(path)),
                    ("contentType", .string(contentType.rawValue)), ("bytes", .int(bytes)), ("sha256", .string(sha256))])
    }

    /// The image and what it holds (its path follows from its name).
    public var viewFact: ViewEvent.Fact {
        .imageStored(uid: UUIDBits(checked: uid), image: UUIDBits(checked: imageName), contentType: contentType, bytes: bytes,
                     sha256: Digest32(hex: sha256) ?? .zero)
    }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact {
        .imageStored(uid: slots.uuid(Member.uid, in: line) ?? .zero, image: slots.uuid(Member.imageName, in: line) ?? .zero,
                     contentType: slots.choice(Member.contentType, ImageContentType.self, in: line),
                     bytes: slots.int(Member.bytes, in: line), sha256: slots.digest(Member.sha256, in: line))
    }
}
