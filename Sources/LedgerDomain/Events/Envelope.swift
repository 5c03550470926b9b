// MARK: - Envelope

/// One line of the log, member for member (the wire format v1).
public struct Envelope: Equatable, Sendable {
    /// Position in the log: 1 on the first line, +1 on each next line.
    public var seq: Int
    /// A lowercase UUID, unique in the log.
    public var id: String
    /// When the event was appended.
    public var at: Timestamp
    /// The event type's wire name.
    public var type: String
    /// The schema version of `data`.
    public var v: Int
    /// `<category>-<lowercase uuid>`.
    public var stream: String
    /// The line's place in its batch (`"batch":[index,count]`), on every line of a batch of two
    /// lines or more; nil on a batch of one line.
    public var batch: BatchMark?
    /// The payload.
    public var data: JSONObject
    /// The previous line's `hash` (64 zeros on the first line).
    public var prev: String
    /// SHA-256 of the line's bytes before `,"hash":"`.
    public var hash: String

    /// An envelope from its members.
    public init(seq: Int, id: String, at: Timestamp, type: String, v: Int, stream: String, batch: BatchMark? = nil,
                data: JSONObject, prev: String, hash: String) {
        self.seq = seq; self.id = id; self.at = at; self.type = type; self.v = v
        self.stream = stream; self.batch = batch; self.data = data; self.prev = prev; self.hash = hash
    }

    /// `batch`, `BatchMark.unmarked` when absent.
    public var batchMark: BatchMark { batch ?? .unmarked }

    /// The `prev` of the first line.
    public static let genesisHash = String(repeating: "0", count: 64)
}

// MARK: - RecordedEvent

/// An event read from (or appended to) the log: its envelope and typed payload.
public struct RecordedEvent: Equatable, Sendable {
    /// The line's members.
    public var envelope: Envelope
    /// The typed event.
    public var event: LedgerEvent

    /// A recorded event from its parts.
    public init(envelope: Envelope, event: LedgerEvent) { self.envelope = envelope; self.event = event }

    /// Shorthand for `envelope.seq`.
    public var seq: Int { envelope.seq }
    /// Shorthand for `envelope.at`.
    public var at: Timestamp { envelope.at }
    /// Shorthand for `envelope.stream`.
    public var stream: String { envelope.stream }
}

// MARK: - Head

/// The ledger's digest: the last line's `seq` and `hash` (seq 0 and the genesis hash when empty).
public struct Head: Equatable, Hashable, Sendable {
    /// The last `seq`, 0 for an empty log.
    public var seq: Int
    /// The last `hash`, 64 zeros for an empty log.
    public var hash: String

    /// A head from its members.
    public init(seq: Int, hash: String) { self.seq = seq; self.hash = hash }

    /// The head of an empty log.
    public static let empty = Head(seq: 0, hash: Envelope.genesisHash)
}
