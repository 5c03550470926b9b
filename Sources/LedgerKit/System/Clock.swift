import Glibc
import LedgerDomain

// MARK: - Clock

/// The time source, injected so tests and drills can control it.
public protocol Clock {
    /// The current instant.
    func now() -> Timestamp
}

/// The real-time system clock (`CLOCK_REALTIME`).
public struct SystemClock: Clock {
    /// The system clock.
    public init() {}

    /// The current instant, millisecond precision.
    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millis: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
