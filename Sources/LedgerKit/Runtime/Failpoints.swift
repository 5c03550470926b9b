import Glibc
import LedgerDomain

// MARK: - Failpoints

/// Fault drills from `LEDGER_FAILPOINTS=EVENT=ACTION,…`: `error` makes the step that would append
/// EVENT fail as an I/O error would; `crash` SIGKILLs the process right after EVENT is durable.
public struct Failpoints: Sendable {
    /// What a failpoint does.
    public enum Action: String, Sendable {
        /// Fail the step with an I/O error.
        case error
        /// Kill the process after the event is durable.
        case crash
    }

    /// Events that may carry a failpoint.
    public static let events: [EventType] = [.accountCreated, .imageStored, .profileWritten, .imageDeleted, .accountDeleted, .sessionStarted, .signInFailed]

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
                throw FailpointError(message: "LEDGER_FAILPOINTS entry \"\(entry)\" is not EVENT=error|crash with EVENT one of \(names)")
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
