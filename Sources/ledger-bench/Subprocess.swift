import Glibc

// MARK: - ChildResult

/// How a timed child process ended.
struct ChildResult {
    /// Exit status (128 + signal when killed).
    var status: Int32
    /// Wall time from spawn to reaping, seconds.
    var seconds: Double
    /// Peak resident set size, KiB: the child's own, read by `/usr/bin/time` (see `Subprocess.run`).
    var maxRSSKiB: Int
    /// Standard output (kept up to `Subprocess.outputLimit` bytes).
    var stdout: String
    /// Standard error (kept up to `Subprocess.outputLimit` bytes).
    var stderr: String
}

// MARK: - Subprocess

/// Spawns a program with `posix_spawn`, times it to the microsecond and reads its peak RSS.
/// Output goes to files (no pipe can fill up), read back after it ends.
///
/// Peak RSS: Linux keeps a process's `maxrss` across `execve`, and a spawned child starts from its
/// parent's memory, so `wait4`'s `ru_maxrss` is never below this tool's own RSS (about 20 MiB).
/// The child is therefore run under `/usr/bin/time -f %M` (GNU time, itself tiny) when it exists,
/// which reports the grandchild's own peak; without it the `wait4` figure (an upper bound) is kept.
enum Subprocess {
    /// The most output kept in a result.
    static let outputLimit = 1 << 20
    /// GNU time, when installed (`apt-get install time`).
    static let gnuTime = "/usr/bin/time"

    /// A child started by `start`, to be reaped by `finish`.
    struct Running {
        /// Its process id (GNU time's, when the child runs under it).
        let pid: pid_t
        /// When it was spawned (`Stopwatch.now()`).
        let began: Double
        /// The folder holding its standard streams.
        let scratch: String
        /// True when it runs under GNU time.
        let timed: Bool
    }

    /// Runs `path` with `arguments`; `stdin` is written to its standard input, `environment` adds to ours.
    static func run(_ path: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                    scratch: String) throws -> ChildResult {
        try finish(try start(path, arguments, stdin: stdin, environment: environment, scratch: scratch))
    }

    /// Spawns `path` as `run` does, without waiting for it; its streams are files in `scratch`
    /// (one folder per running child).
    static func start(_ path: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                      scratch: String) throws -> Running {
        let inPath = scratch + "/child.stdin", outPath = scratch + "/child.stdout", errPath = scratch + "/child.stderr"
        let rssPath = scratch + "/child.rss"
        try write(stdin, to: inPath)
        let timed = access(Self.gnuTime, X_OK) == 0
        let program = timed ? Self.gnuTime : path
        let argumentList = timed ? ["-f", "%M", "-o", rssPath, path] + arguments : arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var merged = currentEnvironment()
        for (key, value) in environment { merged[key] = value }
        let argv = ([program] + argumentList).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let began = Stopwatch.now()
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError.failed("cannot run \(path): \(String(cString: strerror(spawned)))") }
        return Running(pid: pid, began: began, scratch: scratch, timed: timed)
    }

    /// Waits for `child` to end and reads what it left.
    static func finish(_ child: Running) throws -> ChildResult {
        let outPath = child.scratch + "/child.stdout", errPath = child.scratch + "/child.stderr", rssPath = child.scratch + "/child.rss"
        var status: Int32 = 0
        var usage = rusage()
        while wait4(child.pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError.failed("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let seconds = Stopwatch.now() - child.began
        let exited = (status & 0x7F) == 0
        // GNU time writes "Command exited with non-zero status N" before the figure when the child failed.
        let reported = child.timed ? read(rssPath).split(separator: "\n").last.flatMap { Int($0) } : nil
        return ChildResult(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), seconds: seconds,
                           maxRSSKiB: reported ?? Int(usage.ru_maxrss), stdout: read(outPath), stderr: read(errPath))
    }

    /// `KEY=VALUE` pairs of this process.
    static func currentEnvironment() -> [String: String] {
        var out: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") { out[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            pointer += 1
        }
        return out
    }

    private static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError.failed("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BenchError.failed("short write to \(path)")
        }
    }

    private static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: outputLimit)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n <= 0 { break }
            count += n
        }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
