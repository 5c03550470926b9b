import Glibc
import LedgerDomain

// MARK: - Failpoints

/// Fault drills from `LEDGER_FAILPOINTS=EVENT=ACTION,…`: `error` makes the step that would append
/// EVENT fail as an I/O error would; `crash` SIGKILLs the process right after EVENT is durable;
/// `power-loss` makes the write that holds EVENT durable only up to the line before it, then
/// SIGKILLs the process, as a power cut in the middle of that write would (a batch cut short:
/// not part of the log, see `append(_:to:condition:flush:)`).
public struct Failpoints: Sendable {
    /// What a failpoint does.
    public enum Action: String, Sendable {
        /// Fail the step with an I/O error.
        case error
        /// Kill the process after the event is durable.
        case crash
        /// Write the lines of the event's batch before it durably (a batch cut short), then kill the process.
        case powerLoss = "power-loss"
    }

    /// Events that may carry a failpoint.
    public static let events: [EventType] = [.accountCreated, .imageStored, .profileWritten, .imageDeleted, .accountDeleted, .sessionStarted, .signInFailed,
                                             .passwordChanged, .emailChanged, .accountDisabled, .sessionEnded, .personalDataErased]

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
            // The event is not named: which step failed must not tell a right password from a wrong one.
            throw StoreError(.io, "injected I/O error (LEDGER_FAILPOINTS)")
        }
    }

    /// Appends `parts` to `store` under `condition`, one write. When an event of them is set to
    /// `power-loss`, leaves instead what a power cut just before that event's line leaves: on a
    /// store that can show it (`PowerLossDrill`, the file store), the batch's lines before it
    /// written and synced as that write would have them — a batch cut short, which readers take as
    /// a torn tail and the next writer moves aside; on any other store (PostgreSQL: an unfinished
    /// transaction) nothing. Then kills the process with SIGKILL (after `flush`).
    @discardableResult
    public func append(_ parts: [StreamAppend], to store: any EventStore, condition: AppendCondition?,
                       flush: () -> Void = {}) throws -> [RecordedEvent] {
        guard !actions.isEmpty, let kept = powerLossLines(of: parts) else { return try store.append(parts, condition: condition) }
        if kept > 0, let drill = store as? any PowerLossDrill { try? drill.appendCutByPowerLoss(parts, condition: condition, keepingLines: kept) }
        flush()
        kill(getpid(), SIGKILL)
        throw StoreError(.io, "injected power loss (LEDGER_FAILPOINTS)")  // not reached: the process is gone
    }

    /// The number of lines of the batch `parts` writes before the first line set to `power-loss`,
    /// nil when none is set.
    func powerLossLines(of parts: [StreamAppend]) -> Int? {
        var before = 0
        for part in parts {
            if let line = part.events.firstIndex(where: { actions[$0.type] == .powerLoss }) { return before + line }
            before += part.events.count
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
