import Glibc
import LedgerDomain

// MARK: - Failpoints

/// Fault drills from `LEDGER_FAILPOINTS=EVENT=ACTION,…`: `error` makes the step that would append
/// EVENT fail as an I/O error would; `crash` SIGKILLs the process right after EVENT is durable;
/// `power-loss` makes the write that holds EVENT durable only up to the line before it, then
/// SIGKILLs the process, as a power cut in the middle of that write would.
public struct Failpoints: Sendable {
    /// What a failpoint does.
    public enum Action: String, Sendable {
        /// Fail the step with an I/O error.
        case error
        /// Kill the process after the event is durable.
        case crash
        /// Write the lines of the event's batch before it durably, then kill the process.
        case powerLoss = "power-loss"
    }

    /// Events that may carry a failpoint.
    public static let events: [EventType] = [.accountCreated, .imageStored, .profileWritten, .imageDeleted, .accountDeleted, .sessionStarted, .signInFailed,
                                             .passwordChanged, .emailChanged, .accountDisabled, .sessionEnded]

    /// The configured actions.
    public private(set) var actions: [EventType: Action] = [:]

    /// No failpoints.
    public init() {}

    /// Parses `LEDGER_FAILPOINTS`; throws a one-line message naming the bad entry.
    public init(_ text: String?) throws {
        guard let text, !text.isEmpty else { return }
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let type = EventType(rawValue: String(parts[0])), Self.events.contains(type),
                  let action = Action(rawValue: String(parts[1])) else {
                let names = Self.events.map(\.rawValue).joined(separator: ", ")
                throw FailpointError(message: "LEDGER_FAILPOINTS entry \"\(entry)\" is not EVENT=error|crash|power-loss with EVENT one of \(names)")
            }
            actions[type] = action
        }
    }

    /// Throws the injected I/O error when `type` is set to `error`.
    public func beforeAppending(_ type: EventType) throws {
        if actions[type] == .error {
            throw StoreError(.io, "injected I/O error before \(type.rawValue) (LEDGER_FAILPOINTS)")
        }
    }

    /// Appends `parts` with `append`, one write. When an event of them is set to `power-loss`, appends
    /// instead only what a power cut just before that event's line leaves durable: the parts before
    /// its part, and its part's events before it (nothing when it is the batch's first line); then
    /// kills the process with SIGKILL (after `flush`).
    public func append<Result>(_ parts: [StreamAppend], flush: () -> Void = {},
                               _ append: ([StreamAppend]) throws -> Result) throws -> Result {
        guard !actions.isEmpty, let cut = powerLossPrefix(of: parts) else { return try append(parts) }
        if !cut.isEmpty { _ = try append(cut) }
        flush()
        kill(getpid(), SIGKILL)
        throw StoreError(.io, "injected power loss (LEDGER_FAILPOINTS)")  // not reached: the process is gone
    }

    /// The parts a power cut before the first line set to `power-loss` leaves, nil when none is set.
    func powerLossPrefix(of parts: [StreamAppend]) -> [StreamAppend]? {
        for (index, part) in parts.enumerated() {
            guard let line = part.events.firstIndex(where: { actions[$0.type] == .powerLoss }) else { continue }
            var kept = Array(parts[..<index])
            if line > 0 { kept.append(StreamAppend(Array(part.events[..<line]), to: part.stream, expected: part.expected)) }
            return kept
        }
        return nil
    }

    /// Kills the process with SIGKILL when `type` is set to `crash` (the event is already durable).
    public func afterAppending(_ type: EventType, flush: () -> Void = {}) {
        if actions[type] == .crash {
            flush()
            kill(getpid(), SIGKILL)
        }
    }
}

/// A malformed `LEDGER_FAILPOINTS`.
public struct FailpointError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One-line message.
    public let message: String
    /// The message.
    public var description: String { message }
}
