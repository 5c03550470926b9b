import LedgerDomain

// MARK: - Ledger, following the log

extension Ledger {
    /// One event of the log, as `ledger events --json` lists it.
    public struct LoggedEvent: Sendable, Equatable {
        /// Its position in the log (1, 2, …).
        public let seq: Int
        /// Its type (`AccountCreated`, `SessionStarted`, …).
        public let type: String
        /// Its stream (`registration-<id>`, `session-<id>`, …).
        public let stream: String
        /// When it was appended (RFC 3339).
        public let at: String
        /// Its line, as the log holds it (personal members of a version 2 log stay sealed).
        public let line: String
    }

    /// The log's events from its first line, then each one appended since (by this process or any
    /// other), as they become durable: every line verified and chain-checked before it is given. The
    /// sequence ends with `LedgerError.Code.damaged` at a damaged line, and when the task iterating it
    /// is cancelled (or the ledger closed). `poll` is how long it waits between looks when caught up.
    public func follow(poll: Duration = .milliseconds(200)) -> AsyncThrowingStream<LoggedEvent, any Error> {
        let follower = FollowerBox(configuration)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    while !Task.isCancelled {
                        let (events, ended) = try await perform { _ in try follower.next() }
                        for event in events { continuation.yield(event) }
                        if let ended { throw ended }
                        if events.isEmpty { try await Task.sleep(for: poll) }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The reader one `follow` sequence keeps between its looks.
private final class FollowerBox: @unchecked Sendable {
    // @unchecked: one `follow` task uses it, one look after the other (each look awaits the last),
    // so its reader is never used by two threads at once.
    private let read: (_ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> LogFollower.Outcome

    init(_ configuration: Ledger.Configuration) {
        switch configuration.store {
        case .file:
            let reader = LogFollower(path: FileSystem.join(configuration.directory, "events.jsonl"))
            read = { try reader.read($0) }
        case .postgres(let url):
            let reader = PostgresLogFollower(store: PostgresEventStore(url: url))
            read = { try reader.read($0) }
        }
    }

    /// The events appended since the last look (at most 10,000), and the error that ends the
    /// sequence when the log is damaged.
    func next() throws -> ([Ledger.LoggedEvent], LedgerError?) {
        var events: [Ledger.LoggedEvent] = []
        let outcome = try read { event, line in
            events.append(Ledger.LoggedEvent(seq: event.seq, type: event.event.type.rawValue, stream: event.stream,
                                             at: event.at.rfc3339, line: String(decoding: line, as: UTF8.self)))
            return events.count < 10_000
        }
        if case .damaged(let problem) = outcome { return (events, LedgerError(.damaged, "\(problem)")) }
        return (events, nil)
    }
}
