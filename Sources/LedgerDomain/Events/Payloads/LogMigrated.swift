// MARK: - LogMigrated

/// A log was migrated into this one: the first line of a log that `ledger migrate` wrote from a
/// data version 1 log. Every line after it, up to `events` of them, is one of the old log's events
/// in order, with its id, type, stream, time and batch kept and its personal members encrypted
/// (data version 2); the chain is new. Holds no personal data. It sits in a stream of its own
/// (`migration-<uuid>`), which no other event shares.
public struct LogMigrated: EventPayload, DescribedPayload {
    /// The catalogue entry.
    public static let eventType = EventType.logMigrated
    /// The old log's head (its last line's `seq` and `hash`), as `SEQ:HASH`.
    public var fromHead: Head
    /// How many events the old log held (the lines that follow this one).
    public var events: Int
    /// When the migration ran (the line's `at` is the old log's first event's, so that times rise
    /// through the new log as they did through the old one).
    public var migratedAt: Timestamp

    /// The members of `data`.
    enum Member: Int, PayloadMember {
        case fromHead, events, migratedAt

        var rule: MemberRule {
            switch self {
            case .fromHead: MemberRule("fromHead", .anchor)
            case .events: MemberRule("events", .count)
            case .migratedAt: MemberRule("migratedAt", .timestamp)
            }
        }
    }

    static let schema = PayloadSchema<Member>()

    /// A payload from its members.
    public init(fromHead: Head, events: Int, migratedAt: Timestamp) {
        self.fromHead = fromHead; self.events = events; self.migratedAt = migratedAt
    }

    /// Decodes `data`.
    public init(data: JSONObject) throws(EventDataError) {
        let r = try DataReader(data, Self.schema)
        self.init(fromHead: Head(anchor: r.text(.fromHead)) ?? .empty, events: r.int(.events), migratedAt: r.timestamp(.migratedAt))
    }

    /// The members in log order.
    public var data: JSONObject {
        JSONObject([("fromHead", .string(fromHead.anchor)), ("events", .int(events)), ("migratedAt", .string(migratedAt.rfc3339))])
    }

    /// Nothing a view keeps.
    public var viewFact: ViewEvent.Fact { .logMigrated }

    static func viewFact(_ slots: borrowing MemberSlots, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact { .logMigrated }
}
