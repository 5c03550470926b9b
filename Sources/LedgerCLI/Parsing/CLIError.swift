import LedgerKit

// MARK: - CLIError

/// An error the CLI reports as one `ledger: …` line with a documented exit status.
public struct CLIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exit statuses of `Docs/CLI.md`.
    public enum Status: Int32, Sendable {
        /// Refused, failed, damaged or anomalies found.
        case failure = 1
        /// Bad command line.
        case usage = 2
        /// Environment or I/O error (missing file, full disk, failed fsync).
        case environment = 3
    }

    /// The exit status.
    public let status: Status
    /// The one-line message (without the `ledger: ` prefix).
    public let message: String

    /// A usage error (exit 2).
    public static func usage(_ message: String) -> CLIError { CLIError(status: .usage, message: message) }
    /// A refusal or failure (exit 1).
    public static func failure(_ message: String) -> CLIError { CLIError(status: .failure, message: message) }
    /// An environment or I/O error (exit 3).
    public static func environment(_ message: String) -> CLIError { CLIError(status: .environment, message: message) }

    /// The message.
    public var description: String { message }

    // MARK: - Mapping other rooms' errors (the one place that does)

    /// Maps any error to the CLI's message and exit status.
    public static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StoreError:
            switch error.code {
            case .wrongExpectedVersion, .conditionFailed, .damaged, .invalidBatch: return .failure(error.message)
            case .io, .notDurable: return .environment(error.message)
            }
        case let error as SystemError:
            return .environment(error.description)
        case let error as AuthError:
            return error.code == .invalidCost ? .usage(error.message) : .failure(error.message)
        default:
            return .environment("\(error)")
        }
    }
}
