import LedgerKit

// MARK: - FollowSource

/// Where `--follow` reads appended events from, and how it waits for more.
struct FollowSource {
    /// Delivers the events appended since the last call (see `LogFollower.read`).
    let read: (_ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> LogFollower.Outcome
    /// Said once while there is no log yet (nil: never).
    let missingNote: String?
    /// What to do about a damaged line, after the problem.
    let damageAdvice: String
    /// Waits until there may be more; true when SIGINT or SIGTERM arrived meanwhile.
    let waitForMore: (InterruptSignals) throws -> Bool
}
