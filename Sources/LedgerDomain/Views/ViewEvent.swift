// MARK: - ViewEvent

/// One event as the views fold it: ids as 128-bit values, digests as 32 bytes, times as milliseconds,
/// and only the members a view keeps (no password hash, no envelope). The replay decodes canonical
/// lines straight into this; any other event is converted with `init(_:)`, so both fold the same way.
public struct ViewEvent: Equatable, Sendable {
    /// The line's seq.
    public var seq: Int
    /// The line's time.
    public var at: Timestamp
    /// The stream's category.
    public var category: StreamCategory
    /// The stream's id (the registration, session or sign-in id).
    public var stream: UUIDBits
    /// What happened.
    public var fact: Fact

    /// An event from its parts.
    public init(seq: Int, at: Timestamp, category: StreamCategory, stream: UUIDBits, fact: Fact) {
        self.seq = seq; self.at = at; self.category = category; self.stream = stream; self.fact = fact
    }

    /// The payload members the views keep, per event type.
    public enum Fact: Equatable, Sendable {
        /// `AccountCreated`.
        case accountCreated(uid: UUIDBits, email: String, withImage: Bool?)
        /// `ImageStored`.
        case imageStored(uid: UUIDBits, image: UUIDBits, contentType: ImageContentType, bytes: Int, sha256: Digest32)
        /// `ProfileWritten`.
        case profileWritten(uid: UUIDBits, userName: String, profileImage: UUIDBits?, createdAt: Timestamp)
        /// `Failed` (rare: kept whole).
        case failed(Failed)
        /// `ImageDeleted`.
        case imageDeleted(image: UUIDBits)
        /// `AccountDeleted`.
        case accountDeleted(uid: UUIDBits)
        /// `SessionStarted` (the token hash is checked, not kept: no view shows or uses it).
        case sessionStarted(session: UUIDBits, uid: UUIDBits, expiresAt: Timestamp)
        /// `SessionEnded`.
        case sessionEnded(session: UUIDBits)
        /// `SignInFailed`.
        case signInFailed(email: String, reason: SignInFailure)
    }
}

// MARK: - From a recorded event

extension ViewEvent {
    /// The fold input of a recorded (decoded and checked) event. Its ids are lowercase UUIDs and its
    /// digests lowercase hex, as the payload decoders guarantee; anything else reads as zero bits.
    public init(_ recorded: RecordedEvent) {
        let (category, id) = StreamName.parse(recorded.stream) ?? (.registration, "")
        self.init(seq: recorded.seq, at: recorded.at, category: category, stream: bits(id), fact: Fact(recorded.event))
    }
}

extension ViewEvent.Fact {
    /// The members the views keep of `event`, whose ids are lowercase UUIDs and digests lowercase
    /// hex, as the payload decoders and the saga guarantee; anything else reads as zero bits.
    public init(_ event: LedgerEvent) {
        switch event {
        case .accountCreated(let e): self = .accountCreated(uid: bits(e.uid), email: e.email, withImage: e.withImage)
        case .imageStored(let e):
            self = .imageStored(uid: bits(e.uid), image: bits(e.imageName), contentType: e.contentType, bytes: e.bytes,
                                sha256: Digest32(hex: e.sha256) ?? .zero)
        case .profileWritten(let e):
            self = .profileWritten(uid: bits(e.uid), userName: e.userName, profileImage: e.profileImageName.map(bits), createdAt: e.createdAt)
        case .failed(let e): self = .failed(e)
        case .imageDeleted(let e): self = .imageDeleted(image: bits(e.imageName))
        case .accountDeleted(let e): self = .accountDeleted(uid: bits(e.uid))
        case .sessionStarted(let e):
            self = .sessionStarted(session: bits(e.sessionId), uid: bits(e.uid), expiresAt: e.expiresAt)
        case .sessionEnded(let e): self = .sessionEnded(session: bits(e.sessionId))
        case .signInFailed(let e): self = .signInFailed(email: e.email, reason: e.reason)
        }
    }
}

/// The bits of a UUID the decoders already checked.
private func bits(_ text: String) -> UUIDBits { UUIDBits(uuid: text) ?? .zero }
