import LedgerDomain

// MARK: - MigrationError

/// Why `ledger migrate` wrote nothing; `code` is stable, `message` is one line for people.
public struct MigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// The old log is damaged (or ends in a torn tail): `problem` names its first problem.
        case damaged
        /// The old log is data version 2 already (a `"v":2` line, or a key store beside it).
        case alreadyVersion2 = "already-version-2"
        /// The target folder already holds a log, a key store or anything else.
        case targetNotEmpty = "target-not-empty"
        /// The old log has no event: a new data folder writes version 2 from its first event.
        case emptyLog = "empty-log"
        /// The old log changed between its verification and its copy (it was replaced or rewritten).
        case logChanged = "log-changed"
    }

    /// The stable code.
    public let code: Code
    /// A one-line message.
    public let message: String
    /// The old log's first problem, for `damaged`.
    public let problem: LogProblem?

    /// An error from its parts.
    public init(_ code: Code, _ message: String, problem: LogProblem? = nil) {
        self.code = code; self.message = message; self.problem = problem
    }

    /// The message.
    public var description: String { message }
}
