import Glibc
import LedgerKit

// MARK: - CLIError

/// An error the CLI reports as one `ledger: …` line with a documented exit status and a stable
/// kebab-case code (the `code` of `--json`'s `{"status":"error",…}`).
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
    /// The stable code (`usage`, `no-log`, `damaged`, …; the list is in Docs/CLI.md).
    public let code: String

    /// A usage error (exit 2).
    public static func usage(_ message: String, code: String = "usage") -> CLIError { CLIError(status: .usage, message: message, code: code) }
    /// A refusal or failure (exit 1).
    public static func failure(_ message: String, code: String = "failed") -> CLIError { CLIError(status: .failure, message: message, code: code) }
    /// An environment or I/O error (exit 3).
    public static func environment(_ message: String, code: String = "io-error") -> CLIError {
        CLIError(status: .environment, message: message, code: code)
    }

    /// The log at `path` does not exist (exit 3), saying where a log can come from.
    public static func noLog(at path: String) -> CLIError {
        .environment("no log at \(path) (pass the log as FILE or its folder as --data DIR; `ledger register` starts a new one)", code: "no-log")
    }

    /// The message.
    public var description: String { message }

    // MARK: - Mapping other rooms' errors (the one place that does)

    /// Maps any error to the CLI's message and exit status, adding what to do where the message lacks it.
    public static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as LedgerError:
            // What the store or a service threw is read in its own words below; the library's own
            // refusals keep its code.
            if let cause = error.cause { return from(cause) }
            switch error.code {
            case .notDurable, .closed: return .environment(error.message, code: error.code.rawValue)
            case .invalidInput: return .usage(error.message, code: error.code.rawValue)
            default: return .failure(error.message, code: error.code.rawValue)
            }
        case let error as StoreError:
            let code = error.code.rawValue
            switch error.code {
            case .damaged:
                return .failure(advise(error.message, "run `ledger verify` for the full report"), code: code)
            case .wrongExpectedVersion:
                return .failure(advise(error.message, "another process wrote to it at the same time; run the command again"), code: code)
            case .conditionFailed:
                let advice = error.condition == .registrationRunning ? "wait for it to finish, or run `ledger recover` if it died" : nil
                return .failure(advise(error.message, advice), code: code)
            case .historyRewritten:
                return .failure(error.message, code: code)
            case .invalidBatch:
                return .failure(advise(error.message, "this is a bug in ledger; please report it"), code: code)
            case .io where error.cause.map { $0.isFolder || $0.isPermissionDenied } == true:
                return system(error.cause!)
            case .io where error.reason == StoreError.notRegularFile:
                return .environment(advise(error.message, advice(for: ELOOP)), code: "not-regular-file")
            case .io where error.reason == StoreError.rowsNotStored:
                return .environment(advise(error.message, "list the table's triggers (`\\d ledger_events` in psql) and drop the one that drops rows"), code: code)
            case .io where error.reason == StoreError.serverRefused:
                return .environment(advise(error.message, "the PostgreSQL server's log says more"), code: code)
            case .io:
                return .environment(advise(error.message, "check that the data directory (--data DIR) is writable and the disk has space"), code: code)
            case .notDurable:
                return .environment(advise(error.message, "run `ledger recover`"), code: code)
            case .unavailable where error.reason == StoreError.clientLibraryMissing:
                return .environment(advise(error.message, "install libpq (Debian: `apt-get install libpq5`) on this host"), code: code)
            case .unavailable where error.reason == PostgresEventStore.newerSchema:
                return .environment(error.message, code: code)
            case .unavailable:
                return .environment(advise(error.message, "check that the PostgreSQL server is running and that --store / LEDGER_STORE names it"), code: code)
            }
        case let error as SystemError:
            return system(error)
        case let error as EnvironmentError:
            return .usage("\(error.message); fix or unset \(error.variable)", code: "bad-environment")
        case let error as NoteError:
            return .usage(error.message, code: error.code.rawValue)
        case let error as SignedHeadError:
            return .failure(error.message, code: error.code.rawValue)
        case let error as WitnessError:
            return .failure(error.message, code: error.code.rawValue)
        case let error as WitnessClientError:
            return .failure(error.message, code: WitnessClientError.code)
        case let error as MigrationError:
            return .failure(error.message, code: error.code.rawValue)
        case let error as RegistrationError:
            return .failure(error.message, code: error.code.rawValue)
        case let error as AccountRefusal:
            return .failure(error.message, code: error.code.rawValue)
        case let error as MailError:
            return .environment(error.message, code: error.code.rawValue)
        case let error as AuthError:
            let code = error.code.rawValue
            switch error.code {
            case .invalidCost: return .usage(error.message, code: "bad-environment")
            case .noSession: return .failure(advise(error.message, "list sessions with `ledger sessions --active`"), code: code)
            case .noAccount: return .failure(advise(error.message, "list them with `ledger users`"), code: code)
            default: return .failure(error.message, code: code)
            }
        default:
            return .environment("\(error)")
        }
    }

    /// A failed system call: its own words and what to do, with a code for its kind (a folder given
    /// as a file says so, and a permission refusal says so first).
    static func system(_ error: SystemError) -> CLIError {
        switch error.code {
        case EISDIR where error.operation == "open":
            return .environment("\(error.path) is a directory, not a log file; pass the log file itself, or the folder as --data DIR",
                                code: "is-a-directory")
        case EACCES, EPERM:
            return .environment(advise("permission denied: cannot \(error.operation) \(error.path)", advice(for: error.code)),
                                code: "permission-denied")
        case EISDIR: return .environment("cannot \(error.operation) \(error.path): it is a directory", code: "is-a-directory")
        case ENOENT, ENOTDIR: return .environment(advise(error.description, advice(for: error.code)), code: "not-found")
        case ENOSPC, EDQUOT: return .environment(advise(error.description, advice(for: error.code)), code: "no-space")
        case ELOOP: return .environment(advise(error.description, advice(for: error.code)), code: "not-regular-file")
        default: return .environment(advise(error.description, advice(for: error.code)))
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
