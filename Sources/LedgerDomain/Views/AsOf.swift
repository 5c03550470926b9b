// MARK: - AsOf

/// `--as-of`: the views as they stood after an event (`SEQ`) or at a time (RFC 3339). Every read
/// command resolves it through these three questions, so a point in time means the same everywhere.
public enum AsOf: Equatable, Sendable {
    /// After the event with this seq.
    case seq(Int)
    /// At this instant (events with `at` not after it).
    case time(Timestamp)

    /// Parses `SEQ` or an RFC 3339 timestamp; nil when it is neither.
    public init?(_ text: String) {
        if let seq = Int(text), seq >= 0 { self = .seq(seq) } else if let time = Timestamp(rfc3339: text) { self = .time(time) } else { return nil }
    }

    /// True when a checkpoint may serve the read at all: for a seq; never for a time, because line
    /// times need not rise with seq, so an event after the checkpoint may still be before the time.
    public var mayUseCheckpoints: Bool {
        if case .seq = self { true } else { false }
    }

    /// True when a checkpoint of the views after event `head` may start the read: a seq at or after it.
    public func mayStart(fromCheckpointAt head: Int) -> Bool {
        if case .seq(let last) = self { head <= last } else { false }
    }

    /// True when the event `seq` at `at` belongs to the views; the read stops at the first that does not.
    public func includes(seq: Int, at: Timestamp) -> Bool {
        switch self {
        case .seq(let last): seq <= last
        case .time(let time): at <= time
        }
    }

    /// The instant the views stand at, for what depends on the clock (session expiry, lockouts):
    /// the given time, or the time of the last event included (the epoch when there is none).
    public func instant(lastIncludedAt: Timestamp?) -> Timestamp {
        switch self {
        case .seq: lastIncludedAt ?? Timestamp(millis: 0)
        case .time(let time): time
        }
    }
}
