import LedgerDomain

// MARK: - StoreError

/// Why an append or read was refused; `code` is stable, `message` is for people.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable error codes of the store room.
    public enum Code: String, Sendable {
        /// The stream's version was not the one expected.
        case wrongExpectedVersion = "wrong-expected-version"
        /// An append condition (e.g. email uniqueness) refused the batch.
        case conditionFailed = "condition-failed"
        /// The log is damaged before its last line; writers refuse.
        case damaged
        /// The log or its folder could not be read or written.
        case io = "io-error"
        /// A durability call failed: nothing can be assumed about the last write.
        case notDurable = "not-durable"
        /// The batch was empty or malformed.
        case invalidBatch = "invalid-batch"
        /// The store's server cannot be reached, its connection was lost, or it has no ledger schema.
        case unavailable = "store-unavailable"
        /// A cache beside the log recorded another hash for a line the log still holds
        /// (`HistoryRewrite`): writers refuse until `ledger recover --accept-history`.
        case historyRewritten = "history-rewritten"
    }

    /// The `reason` of an `io` error for a store file that is a symbolic link or not a regular file,
    /// one opened for writing that is a hard link, or a data-directory folder that is a link.
    public static let notRegularFile = "not-a-regular-file"
    /// `reason` of an `io` error: the PostgreSQL server refused a statement (its message says why).
    public static let serverRefused = "server-refused"
    /// `reason` of an `io` error: PostgreSQL stored fewer rows than were inserted (a trigger on `ledger_events`).
    public static let rowsNotStored = "rows-not-stored"
    /// `reason` of an `unavailable` error: libpq, which a PostgreSQL store needs, cannot be loaded.
    public static let clientLibraryMissing = "client-library-missing"

    /// The stable code.
    public let code: Code
    /// A one-line human message.
    public let message: String
    /// For `conditionFailed`: the condition's own reason code (e.g. `email-already-in-use`); for `io`,
    /// `notRegularFile` when a store file was refused for its kind.
    public let reason: String?
    /// For `conditionFailed`: what the refusal means, when it is one the saga acts on.
    public let condition: ConditionFailure?
    /// For `damaged`: the problem found.
    public let problem: LogProblem?
    /// For `io`: the failed system call, when it was one.
    public private(set) var cause: SystemError?

    /// An error from its parts.
    public init(_ code: Code, _ message: String, reason: String? = nil, problem: LogProblem? = nil) {
        self.code = code; self.message = message; self.reason = reason; self.problem = problem; condition = nil
    }

    /// A `conditionFailed` refusal meaning `condition` (its raw value is the `reason`).
    public init(_ message: String, condition: ConditionFailure) {
        code = .conditionFailed; self.message = message; reason = condition.rawValue; problem = nil; self.condition = condition
    }

    /// The message.
    public var description: String { message }

    /// Wraps a failed system call.
    public static func io(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let system = error as? SystemError else { return StoreError(.io, "\(error)") }
        var wrapped = StoreError(.io, "\(system)", reason: system.isNotRegular ? notRegularFile : nil)
        wrapped.cause = system
        return wrapped
    }

    /// Runs `body`; whatever it throws comes out as a store error (`io` unless it is one already).
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw io(error) }
    }

    /// "Wrong expected version", naming the stream and both versions.
    public static func wrongVersion(stream: String, expected: ExpectedVersion, actual: Int) -> StoreError {
        StoreError(.wrongExpectedVersion, "wrong expected version \(expected) for stream \(stream): its version is \(actual)")
    }
}
