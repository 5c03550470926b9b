import LedgerDomain

// MARK: - ExpectedVersion

/// What the appender believes about the stream's version (its number of events).
public enum ExpectedVersion: Equatable, Sendable, CustomStringConvertible {
    /// The stream must not exist yet.
    case noStream
    /// The stream must have exactly this many events.
    case exactly(Int)
    /// Append whatever the version.
    case any

    /// True when a stream at `version` satisfies the expectation.
    public func accepts(_ version: Int) -> Bool {
        switch self {
        case .noStream: version == 0
        case .exactly(let n): version == n
        case .any: true
        }
    }

    /// `no-stream`, `N` or `any`.
    public var description: String {
        switch self {
        case .noStream: "no-stream"
        case .exactly(let n): String(n)
        case .any: "any"
        }
    }
}

// MARK: - StreamAppend

/// One stream's part of an append: its events, and what the appender believes its version is.
public struct StreamAppend: Sendable {
    /// The events, in order.
    public var events: [LedgerEvent]
    /// The stream they go to.
    public var stream: String
    /// The version the stream must have before them.
    public var expected: ExpectedVersion

    /// A part from its members.
    public init(_ events: [LedgerEvent], to stream: String, expected: ExpectedVersion) {
        self.events = events; self.stream = stream; self.expected = expected
    }

    /// Checks what every store refuses before taking its lock: an empty batch, two parts for one
    /// stream, emails claimed (`LedgerEvent.claimedEmail`) in more than one part (an append condition such as `.uniqueEmails`
    /// is asked per part, against the log before the batch), a stream name that is not
    /// `<category>-<lowercase uuid>`, an event of another category than its stream's, and data a
    /// reader would reject (e.g. an uppercase email), which must never reach the log. Returns each
    /// event as a reader decodes it, in order.
    public static func validate(_ parts: [StreamAppend]) throws -> [LedgerEvent] {
        try validatedData(parts).map(\.event)
    }

    /// Like `validate`, also returning each event's `data` as it was encoded for the check, so a
    /// store that writes it need not encode it again.
    public static func validatedData(_ parts: [StreamAppend]) throws -> [(event: LedgerEvent, data: JSONObject)] {
        guard !parts.isEmpty, parts.allSatisfy({ !$0.events.isEmpty }) else {
            throw StoreError(.invalidBatch, "an append needs at least one event")
        }
        guard Set(parts.map(\.stream)).count == parts.count else {
            throw StoreError(.invalidBatch, "an append names a stream twice; put its events in one part")
        }
        guard parts.count(where: { $0.events.contains { $0.claimedEmail != nil } }) <= 1 else {
            throw StoreError(.invalidBatch, "an append claims emails (creates accounts, changes emails) in one stream at most")
        }
        var decoded: [(event: LedgerEvent, data: JSONObject)] = []
        for part in parts {
            guard let category = StreamName.parse(part.stream)?.category else {
                throw StoreError(.invalidBatch, "stream \(part.stream) is not <registration|session|signin|account|migration>-<lowercase uuid>")
            }
            if let wrong = part.events.first(where: { !$0.type.belongs(in: category) }) {
                throw StoreError(.invalidBatch, "\(wrong.type.rawValue) does not belong in stream \(part.stream)")
            }
            for event in part.events {
                do {
                    let data = event.data
                    decoded.append((try LedgerEvent.decode(type: event.type, data: data), data))
                } catch {
                    throw StoreError(.invalidBatch, "\(event.type.rawValue) cannot be appended: \(error)")
                }
            }
        }
        return decoded
    }
}

// MARK: - EventStore

/// The backend-neutral event store, message-db's few operations: batch appends with an expected
/// version per stream and a condition, forward reads from a global position, stream reads, and the
/// head. What the fast paths need beyond them are the capabilities of `StoreCapabilities.swift`.
public protocol EventStore: AnyObject {
    /// Appends the parts' events, in order, atomically and durably (one write and one sync), after
    /// checking every part's expected version and `condition` (asked once per part): all or none.
    /// Returns the recorded events. Nothing is reported as appended unless it is durable.
    func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent]
    /// Calls `body` with every event whose `seq` is at least `from`, in order, until it returns false.
    func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws
    /// Every event of `stream`, in order.
    func readStream(_ stream: String) throws -> [RecordedEvent]
    /// The last `seq` and `hash`.
    func head() throws -> Head
}

extension EventStore {
    /// Appends `events` to `stream` atomically, durably, after checking `expected` and `condition`.
    public func append(_ events: [LedgerEvent], to stream: String, expected: ExpectedVersion,
                       condition: AppendCondition?) throws -> [RecordedEvent] {
        try append([StreamAppend(events, to: stream, expected: expected)], condition: condition)
    }

    /// Appends without a condition.
    public func append(_ events: [LedgerEvent], to stream: String, expected: ExpectedVersion) throws -> [RecordedEvent] {
        try append([StreamAppend(events, to: stream, expected: expected)], condition: nil)
    }

    /// Every event from `seq` on, at most `limit`.
    public func readAll(from seq: Int = 1, limit: Int = .max) throws -> [RecordedEvent] {
        var out: [RecordedEvent] = []
        try read(from: seq) { event in
            out.append(event)
            return out.count < limit
        }
        return out
    }
}
