// MARK: - RegistrationRow

/// One row of the registrations view: a registration's facts (folded by the same rule as the
/// saga's `RegistrationState`) with the times of its first and last events, packed for a view
/// that holds one per registration: ids as 128-bit values, the rare failure out of line.
public struct RegistrationRow: RegistrationFold, Equatable, Sendable {
    /// The registration id's bits.
    public let id: UUIDBits
    /// What the events established.
    public var facts = RegistrationFacts()
    /// Time of the first event.
    public var startedAt: Timestamp? {
        get { times & Self.hasStarted != 0 ? Timestamp(millis: startedMillis) : nil }
        set { startedMillis = newValue?.millis ?? 0; times = newValue != nil ? times | Self.hasStarted : times & ~Self.hasStarted }
    }
    /// Time of the last event.
    public var lastAt: Timestamp? {
        get { times & Self.hasLast != 0 ? Timestamp(millis: lastMillis) : nil }
        set { lastMillis = newValue?.millis ?? 0; times = newValue != nil ? times | Self.hasLast : times & ~Self.hasLast }
    }
    /// The failure, if any.
    public var failure: Failed? {
        get { failureBox?.failure }
        set { failureBox = newValue.map(FailureBox.init) }
    }
    /// Events in the stream.
    public var version: Int {
        get { Int(storedVersion) }
        set { storedVersion = Int32(clamping: newValue) }
    }
    // One per registration in the view: the times without an optional's padding.
    private var startedMillis: Int64 = 0
    private var lastMillis: Int64 = 0
    /// Few registrations fail: the failure lives out of line so the others stay small.
    private var failureBox: FailureBox?
    private var storedVersion: Int32 = 0
    /// Which of the two times are there.
    private var times: UInt8 = 0
    private static let hasStarted: UInt8 = 1, hasLast: UInt8 = 2

    /// The row before any event of registration `id`.
    public init(id: UUIDBits) { self.id = id }

    /// The registration id.
    public var registration: String { id.uuidString }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: ViewEvent) {
        if startedAt == nil { startedAt = event.at }
        lastAt = event.at
        apply(event.fact)
    }
}

// MARK: - FailureBox

/// A registration's failure, out of line (immutable, so sharing it between copies is safe).
private final class FailureBox: Sendable {
    let failure: Failed
    init(_ failure: Failed) { self.failure = failure }
}

extension FailureBox: Equatable {
    static func == (lhs: FailureBox, rhs: FailureBox) -> Bool { lhs.failure == rhs.failure }
}
