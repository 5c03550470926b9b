import Glibc
import LedgerKit

// MARK: - RegistrationProcesses

/// Registrations per second of N processes registering into one store at once, as N `ledger`
/// processes (or N hosts, for PostgreSQL) would. The parent makes the store and registers once;
/// each child (this tool again, `--child I`) opens the store, registers once untimed (connecting,
/// warming up), says it is ready and waits for the start; the figure is all the children's
/// registrations over the wall time from the start to the last child's end.
enum RegistrationProcesses {
    /// The file a child creates when ready, and the one the parent creates to start them all.
    private static func ready(_ folder: String, _ child: Int) -> String { FileSystem.join(folder, "ready-\(child)") }
    private static func start(_ folder: String) -> String { FileSystem.join(folder, "start") }

    /// Runs `processes` children of `count` registrations each into a fresh store under `folder`; returns seconds.
    static func measure(processes: Int, count: Int, folder: String, store url: String?) throws -> Double {
        let data = FileSystem.join(folder, "data")
        _ = try RegistrationBenchmark.prepare(directory: data, store: url)
        let executable = FileSystem.join(Files.executableDirectory(), "ledger-bench")
        var children: [Subprocess.Running] = []
        for child in 1...processes {
            let scratch = FileSystem.join(folder, "child-\(child)")
            try FileSystem.makeDirectories(scratch)
            var arguments = ["registrations", "--child", String(child), "--count", String(count), "--dir", data]
            if let url { arguments += ["--store", url] }
            children.append(try Subprocess.start(executable, arguments, scratch: scratch))
        }
        // Every child ready (or one already ended, which the results below report), then the start.
        while !(1...processes).allSatisfy({ FileSystem.exists(ready(data, $0)) }) {
            if children.contains(where: ended) { break }
            usleep(5_000)
        }
        let began = Stopwatch.now()
        try create(start(data))
        var ended = began
        for (index, child) in children.enumerated() {
            let result = try Subprocess.finish(child)
            guard result.status == 0, let line = result.stdout.split(separator: "\n").last(where: { $0.hasPrefix("ended ") }),
                  let end = Double(line.dropFirst(6)) else {
                throw BenchError.failed("registering process \(index + 1) failed (status \(result.status)): \(result.stderr)")
            }
            ended = max(ended, end)
        }
        return ended - began
    }

    /// The child's side: `count` registrations into the store in `directory` (or at `url`) after
    /// the start; prints `ended T` (`Stopwatch.now()`, one clock for all processes).
    static func child(_ number: Int, count: Int, directory: String, store url: String?) throws -> Int32 {
        let coordinator = try RegistrationBenchmark.coordinator(store: try BenchStore.existing(directory: directory, url: url),
                                                               directory: directory, url: url)
        try RegistrationBenchmark.register(coordinator, "\(number).0")
        try create(ready(directory, number))
        while !FileSystem.exists(start(directory)) { usleep(1_000) }
        for n in 1...count { try RegistrationBenchmark.register(coordinator, "\(number).\(n)") }
        print("ended \(Stopwatch.now())")
        return 0
    }

    /// True when `child` has ended (it stays waitable for `Subprocess.finish`).
    private static func ended(_ child: Subprocess.Running) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid != 0
    }

    private static func create(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError.failed("cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }
}
