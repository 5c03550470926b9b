import Glibc
import LedgerDomain
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

    /// The log at `path` does not exist (exit 3), saying where a log can come from.
    public static func noLog(at path: String) -> CLIError {
        .environment("no log at \(path) (pass the log as FILE or its folder as --data DIR; `ledger register` starts a new one)")
    }

    /// The message.
    public var description: String { message }

    // MARK: - Mapping other rooms' errors (the one place that does)

    /// Maps any error to the CLI's message and exit status, adding what to do where the message lacks it.
    public static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StoreError:
            switch error.code {
            case .damaged:
                return .failure(advise(error.message, "run `ledger verify` for the full report"))
            case .wrongExpectedVersion:
                return .failure(advise(error.message, "another process wrote to it at the same time; run the command again"))
            case .conditionFailed:
                let advice = error.condition == .registrationRunning ? "wait for it to finish, or run `ledger recover` if it died" : nil
                return .failure(advise(error.message, advice))
            case .invalidBatch:
                return .failure(advise(error.message, "this is a bug in ledger; please report it"))
            case .io where error.reason == StoreError.notRegularFile:
                return .environment(advise(error.message, advice(for: ELOOP)))
            case .io:
                return .environment(advise(error.message, "check that the data directory (--data DIR) is writable and the disk has space"))
            case .notDurable:
                return .environment(advise(error.message, "run `ledger recover`"))
            case .unavailable:
                return .environment(advise(error.message, "check that the PostgreSQL server is running and that --store / LEDGER_STORE names it"))
            }
        case let error as SystemError:
            return .environment(advise(error.description, advice(for: error.code)))
        case let error as RegistrationError:
            switch error.code {
            case .idempotencyKeyReused: return .failure(error.message)
            }
        case let error as AccountRefusal:
            return .failure(error.message)
        case let error as MailError:
            return .environment(error.message)
        case let error as AuthError:
            switch error.code {
            case .invalidCost: return .usage(error.message)
            case .noSession: return .failure(advise(error.message, "list sessions with `ledger sessions --active`"))
            case .noAccount: return .failure(advise(error.message, "list them with `ledger users`"))
            default: return .failure(error.message)
            }
        default:
            return .environment("\(error)")
        }
    }

    /// What to do about a failed system call with `errno` `code`.
    static func advice(for code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: return "check the path, or pass --data DIR"
        case EACCES, EPERM, EROFS: return "check the permissions of the data directory, or pass --data DIR"
        case ENOSPC, EDQUOT: return "free some disk space and run the command again"
        case ELOOP: return "ledger reads and writes nothing through a symbolic link, and writes no file that has a second name (hard link): put the regular file or folder itself there"
        default: return "check the disk and run the command again"
        }
    }

    /// `message; advice`, unless the message already says what to run (or there is no advice).
    static func advise(_ message: String, _ advice: String?) -> String {
        guard let advice, !message.contains("`ledger "), !message.contains("LEDGER_") else { return message }
        return "\(message); \(advice)"
    }
}
