import Glibc

// MARK: - ShellCommand

/// A command line an operator configured (`LEDGER_MAILER`, `LEDGER_WITNESS`), run with
/// `/bin/sh -c` and an environment given in full (never this process's own: callers allow-list it),
/// that gets `input` on its standard input (never in its arguments or environment). Its standard
/// output is discarded or captured up to a limit; its standard error is ours or captured up to a
/// limit. It starts with
/// SIGPIPE's default action, whatever this process does with it.
public struct ShellCommand: Sendable {
    /// The command line.
    public let command: String
    /// The environment it runs with (`NAME=value` entries).
    public let environment: [String]

    /// A command running `command` with exactly `environment`.
    public init(command: String, environment: [String]) {
        self.command = command; self.environment = environment
    }

    /// How a run ended.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal killed it.
        case killed(signal: Int32)
        /// It was still running (or holding its standard output open) at the deadline, and was
        /// killed with its process group.
        case timedOut
        /// It wrote more than the limit on its standard output, and was killed with its process group.
        case outputTooLarge
    }

    /// What a run gave.
    public struct Outcome: Sendable {
        /// How it ended.
        public let termination: Termination
        /// Its standard output, when captured (at most the limit).
        public let output: [UInt8]
        /// Its standard error, when captured (at most the limit; what passes it is dropped).
        public let errors: [UInt8]
        /// The `errno` of a write of the input that failed (`EPIPE`: it did not read it all), nil when all was written.
        public let inputError: Int32?
    }

    /// Runs the command with `input` on its standard input and waits for it. With `outputLimit`,
    /// captures its standard output up to that many bytes (else it goes to /dev/null); with
    /// `errorLimit`, its standard error (else it is this process's). With `timeout` (seconds) the command runs in a process group of its own, killed (SIGKILL) when it
    /// has not ended by then. Throws `SystemError` when it cannot be started or waited for.
    public func run(input: [UInt8], outputLimit: Int? = nil, errorLimit: Int? = nil, timeout: Double? = nil) throws -> Outcome {
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard pipe(&stdinPipe) == 0, outputLimit == nil || pipe(&stdoutPipe) == 0, errorLimit == nil || pipe(&stderrPipe) == 0 else {
            let code = errno
            for end in stdinPipe + stdoutPipe + stderrPipe where end >= 0 { close(end) }
            throw SystemError("start", path: command, code: code)
        }
        // The child gets its ends as its standard input, output and error only.
        for end in stdinPipe + stdoutPipe + stderrPipe where end >= 0 { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        if outputLimit != nil {
            posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if errorLimit != nil { posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2) }
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF)
        if timeout != nil {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        for end in [stdinPipe[0], stdoutPipe[1], stderrPipe[1]] where end >= 0 { close(end) }
        guard spawned == 0 else {
            for end in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] where end >= 0 { close(end) }
            throw SystemError("start", path: command, code: spawned)
        }
        let deadline = timeout.map { Self.now() + $0 }
        var exchange = Exchange(input: input, inputFD: stdinPipe[1], outputFD: stdoutPipe[0], limit: outputLimit ?? 0,
                                errorFD: stderrPipe[0], errorLimit: errorLimit ?? 0, deadline: deadline)
        // With a timeout the command leads a process group: what it started goes with it.
        let stop = { _ = kill(timeout == nil ? pid : -pid, SIGKILL) }
        let ended = exchange.run()
        if ended != nil { stop() }
        guard let status = try Self.wait(pid, deadline: ended == nil ? deadline : nil) else {
            stop()
            _ = try Self.wait(pid, deadline: nil)
            return Outcome(termination: .timedOut, output: exchange.output, errors: exchange.errors, inputError: exchange.inputError)
        }
        if let ended { return Outcome(termination: ended, output: exchange.output, errors: exchange.errors, inputError: exchange.inputError) }
        let termination: Termination = status & 0x7F != 0 ? .killed(signal: status & 0x7F) : .exited((status >> 8) & 0xFF)
        return Outcome(termination: termination, output: exchange.output, errors: exchange.errors, inputError: exchange.inputError)
    }

    /// The status of `pid` once it ends; nil when `deadline` passes first (it is then still running).
    /// `SystemError` when it cannot be waited for.
    private static func wait(_ pid: pid_t, deadline: Double?) throws -> Int32? {
        var status: Int32 = 0
        while true {
            let found = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if found == pid { return status }
            if found < 0 {
                if errno == EINTR { continue }
                throw SystemError("wait for", path: "/bin/sh")
            }
            if let deadline, now() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

// MARK: - Exchange

/// Writes the input to a child's standard input and reads its standard output and error at once
/// (`poll`), so neither side waits for the other, until all are closed, the output passes its limit
/// or the deadline passes. SIGPIPE is blocked in this thread alone while it writes and a SIGPIPE it
/// raised is taken back before it is unblocked: the process's signal dispositions are never changed.
private struct Exchange {
    let input: [UInt8]
    var inputFD: Int32
    var outputFD: Int32
    let limit: Int
    var errorFD: Int32
    let errorLimit: Int
    let deadline: Double?
    var written = 0
    var output: [UInt8] = []
    var errors: [UInt8] = []
    var inputError: Int32?

    init(input: [UInt8], inputFD: Int32, outputFD: Int32, limit: Int, errorFD: Int32, errorLimit: Int, deadline: Double?) {
        self.input = input; self.inputFD = inputFD; self.outputFD = outputFD; self.limit = limit
        self.errorFD = errorFD; self.errorLimit = errorLimit; self.deadline = deadline
    }

    /// Runs the exchange; nil when every pipe closed in time, else why it stopped. Closes them all.
    mutating func run() -> ShellCommand.Termination? {
        var pipeSignal = sigset_t(), previous = sigset_t(), wasPending = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        sigpending(&wasPending)
        let pendingBefore = sigismember(&wasPending, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            if !pendingBefore {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&pipeSignal, nil, &zero) < 0 && errno == EINTR {}
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            for fd in [inputFD, outputFD, errorFD] where fd >= 0 { close(fd) }
            inputFD = -1; outputFD = -1; errorFD = -1
        }
        if input.isEmpty { close(inputFD); inputFD = -1 }
        for fd in [inputFD, outputFD, errorFD] where fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        while inputFD >= 0 || outputFD >= 0 || errorFD >= 0 {
            var fds: [pollfd] = []
            if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            for fd in [outputFD, errorFD] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - ShellCommand.now()
                if left <= 0 { return .timedOut }
                wait = Int32(min(left * 1000 + 1, 60_000))
            }
            let n = poll(&fds, nfds_t(fds.count), wait)
            if n < 0 && errno != EINTR { return .timedOut }
            if n <= 0 { continue }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inputFD {
                    writeSome()
                } else if entry.fd == outputFD {
                    if !Self.readSome(&outputFD, into: &output, limit: limit, dropExcess: false) { return .outputTooLarge }
                } else if entry.fd == errorFD {
                    _ = Self.readSome(&errorFD, into: &errors, limit: errorLimit, dropExcess: true)
                }
            }
        }
        return nil
    }

    /// Writes what the pipe takes of the rest of the input; closes it when all is written or the reader is gone.
    private mutating func writeSome() {
        let n = input.withUnsafeBytes { Glibc.write(inputFD, $0.baseAddress! + written, $0.count - written) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            inputError = errno
            close(inputFD); inputFD = -1
            return
        }
        written += n
        if written == input.count { close(inputFD); inputFD = -1 }
    }

    /// Reads what the pipe `fd` holds into `bytes` (closing it at its end); false when that would
    /// pass `limit` and the excess is not to be dropped.
    private static func readSome(_ fd: inout Int32, into bytes: inout [UInt8], limit: Int, dropExcess: Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return true }
        if n <= 0 { close(fd); fd = -1; return true }
        if bytes.count + n > limit {
            guard dropExcess else { return false }
            bytes.append(contentsOf: buffer[0..<max(0, limit - bytes.count)])
            return true
        }
        bytes.append(contentsOf: buffer[0..<n])
        return true
    }
}
