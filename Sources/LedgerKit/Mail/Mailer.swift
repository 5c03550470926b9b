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
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw MailError(.failed, "the mailer could not be started: \(Self.reason(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets the read end as its standard input only
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        // The mailer starts with SIGPIPE's default action, whatever this process does with it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            throw MailError(.failed, "the mailer could not be started: \(Self.reason(spawned))")
        }
        let written = Self.write(message, to: ends[1])
        close(ends[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw MailError(.failed, "the mailer could not be waited for: \(Self.reason(errno))") }
        }
        if status & 0x7F != 0 { throw MailError(.failed, "the message could not be sent (the mailer was killed by signal \(status & 0x7F))") }
        let exit = (status >> 8) & 0xFF
        if exit != 0 { throw MailError(.failed, "the message could not be sent (mailer exited \(exit))") }
        if let failed = written { throw MailError(.failed, "the message could not be sent (the mailer did not read it: \(Self.reason(failed)))") }
    }

    /// Writes all of `text` to `fd`; the `errno` of a failed write (`EPIPE` when the reader is
    /// gone), nil when all was written. SIGPIPE is blocked in this thread alone while it writes and
    /// a SIGPIPE it raised is taken back before it is unblocked: the process's signal dispositions
    /// (a library's caller's) are never changed.
    private static func write(_ text: String, to fd: Int32) -> Int32? {
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var wasPending = sigset_t()
        sigpending(&wasPending)
        let pendingBefore = sigismember(&wasPending, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            if !pendingBefore {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&pipeSignal, nil, &zero) < 0 && errno == EINTR {}
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
