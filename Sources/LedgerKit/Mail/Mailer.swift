import Glibc
import LedgerDomain

// MARK: - Mailer

/// Sends messages to users in the sendmail tradition: `LEDGER_MAILER` is a command line, run with
/// `/bin/sh -c`, that gets the whole RFC 5322 message on its standard input (never in its arguments
/// or environment). Its standard output is discarded and its standard error is ours; a non-zero
/// exit or a signal is an error, never a silent success. It gets an allow-listed environment
/// (`allowedEnvironment`), never the store's URL or any other secret of the process.
public struct Mailer: Sendable {
    /// The command line.
    public let command: String
    /// The sender's address (`LEDGER_MAIL_FROM`).
    public let from: String
    /// The environment the mailer runs with (`NAME=value` entries), already allow-listed.
    public let environment: [String]

    /// The sender when `LEDGER_MAIL_FROM` is unset.
    public static let defaultFrom = "ledger@localhost"
    /// How to set a mailer.
    public static let setup = "set LEDGER_MAILER to a command that reads a message on its standard input, e.g. LEDGER_MAILER='/usr/sbin/sendmail -t'"

    /// A mailer running `command`, sending from `from`, with the allow-listed part of `environment`.
    public init(command: String, from: String = Mailer.defaultFrom, environment: [String: String] = [:]) {
        self.command = command; self.from = from
        self.environment = environment.filter { Self.isAllowed($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// The variables a mailer may see: what a sendmail needs to run and to speak the user's language,
    /// and the `LEDGER_MAIL_*` settings. Nothing else (no `LEDGER_STORE`, no `PGPASSWORD`, no token).
    public static let allowedEnvironment: Set<String> = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR"]

    /// True when the variable `name` is passed to the mailer.
    public static func isAllowed(_ name: String) -> Bool {
        allowedEnvironment.contains(name) || name.hasPrefix("LC_") || name.hasPrefix("LEDGER_MAIL_")
    }

    /// The mailer `LEDGER_MAILER` and `LEDGER_MAIL_FROM` name. Throws `MailError(.notConfigured)`
    /// when there is none, `EnvironmentError` when the sender is no address.
    public static func fromEnvironment(_ environment: [String: String]) throws -> Mailer {
        guard let command = environment["LEDGER_MAILER"], command.contains(where: { !$0.isWhitespace }) else {
            throw MailError(.notConfigured, "no mailer: \(setup)")
        }
        return Mailer(command: command, from: try LedgerEnvironment.mailFrom(environment["LEDGER_MAIL_FROM"]), environment: environment)
    }

    /// Runs the mailer with `message` on its standard input and waits for it. Throws
    /// `MailError(.failed)` when it cannot start, does not read the whole message, exits non-zero
    /// or is killed.
    public func send(_ message: String) throws {
        let outcome: ShellCommand.Outcome
        do {
            outcome = try ShellCommand(command: command, environment: environment).run(input: Array(message.utf8))
        } catch let error as SystemError {
            let what = error.operation == "start" ? "started" : "waited for"
            throw MailError(.failed, "the mailer could not be \(what): \(Self.reason(error.code))")
        }
        switch outcome.termination {
        case .killed(let signal): throw MailError(.failed, "the message could not be sent (the mailer was killed by signal \(signal))")
        case .exited(let status) where status != 0: throw MailError(.failed, "the message could not be sent (mailer exited \(status))")
        case .timedOut, .outputTooLarge: throw MailError(.failed, "the message could not be sent (the mailer was stopped)")
        case .exited: break
        }
        if let failed = outcome.inputError { throw MailError(.failed, "the message could not be sent (the mailer did not read it: \(Self.reason(failed)))") }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
