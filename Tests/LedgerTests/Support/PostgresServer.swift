import Foundation
import Glibc
import LedgerKit

// MARK: - PostgresServer

/// A PostgreSQL server for tests: the one `LEDGER_TEST_POSTGRES` names (a URL), or else a throwaway
/// cluster this process starts (initdb in a temp folder, run as the `postgres` user when we are
/// root, a random free loopback port) and that a watchdog stops and removes once the process ends.
/// Every test takes a database of its own (`withDatabase`), so tests run in parallel.
final class PostgresServer: @unchecked Sendable {
    /// The server every test shares (started on first use).
    static let shared: Result<PostgresServer, SystemTestError> = {
        if let text = ProcessInfo.processInfo.environment["LEDGER_TEST_POSTGRES"], !text.isEmpty {
            guard let url = PostgresURL(text) else { return .failure(SystemTestError("LEDGER_TEST_POSTGRES is not a postgres:// URL")) }
            return .success(PostgresServer(url: url, cluster: nil))
        }
        do {
            return .success(try PostgresServer.startCluster())
        } catch let error as SystemTestError {
            return .failure(error)
        } catch {
            return .failure(SystemTestError("\(error)"))
        }
    }()

    /// The URL of the server's `postgres` database (for administration).
    let url: PostgresURL
    /// The cluster this process started, nil when the server is given by `LEDGER_TEST_POSTGRES`.
    let cluster: Cluster?

    private init(url: PostgresURL, cluster: Cluster?) { self.url = url; self.cluster = cluster }

    /// The shared server, or the reason it could not start (the test then fails; it never skips).
    static func get() throws -> PostgresServer { try shared.get() }

    // MARK: - Databases

    /// Creates a fresh database, passes its URL to `body`, and drops it afterwards.
    func withDatabase<T>(_ body: (PostgresURL) throws -> T) throws -> T {
        let database = try createDatabase()
        defer { dropDatabase(database) }
        return try body(database)
    }

    /// Creates a fresh, empty database and returns its URL.
    func createDatabase() throws -> PostgresURL {
        let name = "ledger_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(url).execute("CREATE DATABASE \(name)")
        return url.withDatabase(name)
    }

    /// Drops a database `createDatabase` made, disconnecting whoever is still connected.
    func dropDatabase(_ database: PostgresURL) {
        _ = try? PostgresConnection(url).execute("DROP DATABASE IF EXISTS \(database.databaseName) WITH (FORCE)")
    }

    // MARK: - Throwaway clusters

    /// A cluster in a temp folder: its data directory, port and the commands to stop, kill and start it.
    struct Cluster {
        /// The temp folder (data in `data/`, the socket and log beside it).
        let root: String
        /// The loopback TCP port.
        let port: Int

        var data: String { root + "/data" }

        /// `pg_ctl start` (waits until it accepts connections).
        func start() throws {
            try PostgresServer.asPostgres(["pg_ctl", "-D", data, "-l", root + "/server.log", "-w", "-t", "60", "-o",
                                           "-p \(port) -c listen_addresses=127.0.0.1 -k \(root) -c max_connections=200", "start"])
        }

        /// `pg_ctl stop -m immediate`: the server stops at once, as if the machine lost power (no checkpoint).
        func stopImmediately() throws {
            try PostgresServer.asPostgres(["pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        }

        /// SIGKILL to the postmaster (its pid is the first line of `postmaster.pid`).
        func killPostmaster() throws {
            let text = try String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)
            guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw SystemTestError("no postmaster pid") }
            kill(pid, SIGKILL)
        }
    }

    /// Starts a throwaway cluster of its own (also used by tests that kill the server).
    static func startCluster() throws -> PostgresServer {
        let root = try makeTempDirectory("ledger-pg")
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else { throw SystemTestError("no `postgres` user to run the server as (it refuses root)") }
            chown(root, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let cluster = Cluster(root: root, port: try freePort())
        try asPostgres(["initdb", "-D", cluster.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        try cluster.start()
        // The watchdog stops the server and removes the folder once this test process has ended.
        let pgCtl = "\(binDirectory)/pg_ctl"
        let stop = getuid() == 0 ? "runuser -u postgres -- \(pgCtl)" : pgCtl
        var pid = pid_t()
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) -D \(cluster.data) -m immediate stop >/dev/null 2>&1; rm -rf \(root)"
        let argv = ["/usr/bin/setsid", "/bin/sh", "-c", script]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        closeInheritedDescriptors(&actions)  // see `spawnAndWait`
        guard posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { throw SystemTestError("cannot start the cluster watchdog") }
        return PostgresServer(url: PostgresURL("postgres://postgres@127.0.0.1:\(cluster.port)/postgres")!, cluster: cluster)
    }

    /// The server binaries: `$LEDGER_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`.
    static let binDirectory: String = {
        if let dir = ProcessInfo.processInfo.environment["LEDGER_PG_BIN"], !dir.isEmpty { return dir }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap { Int($0) }.max().map(String.init) ?? "15"
        return "/usr/lib/postgresql/\(newest)/bin"
    }()

    /// Runs a server binary as `postgres` (when root) and throws with its output when it fails.
    /// Spawned directly and reaped with `waitpid`: `pg_ctl start` leaves a daemon behind, which
    /// Foundation's `Process` can wait on forever.
    static func asPostgres(_ command: [String]) throws {
        let binary = "\(binDirectory)/\(command[0])"
        let argv = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", binary] + command.dropFirst() : [binary] + command.dropFirst()
        let output = try makeTempDirectory("ledger-pg-out") + "/output"
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.parent(output)) }
        let status = try spawnAndWait(argv, output: output)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw SystemTestError("\(command.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }

    /// Runs `argv` with standard input from /dev/null and output to `output`, in /tmp, and waits for it.
    static func spawnAndWait(_ argv: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: the server `pg_ctl start` leaves behind outlives the test, and a
        // descriptor it kept — the socket by which Foundation's `Process` learns that a `ledger` child
        // started at the same moment on another thread has exited — would make that child's
        // `waitUntilExit()` wait forever (swift-corelibs-foundation#4795).
        closeInheritedDescriptors(&actions)
        chmod(FileSystemPath.parent(output), 0o777)
        let inTmp = ["/bin/sh", "-c", "cd /tmp && exec \"$@\"", "sh"] + argv
        let cArgs = inTmp.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, inTmp[0], &actions, nil, cArgs, environ)
        guard spawned == 0 else { throw SystemTestError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Makes a spawned child close every descriptor above standard error: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+; not in Swift's Glibc module, so looked up),
    /// else one `addclose` per descriptor open now.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    /// A loopback TCP port nobody listens on right now.
    static func freePort() throws -> Int {
        let (fd, port) = try loopbackSocket(listening: false)
        close(fd)
        return Int(port)
    }

    /// A folder under /tmp that outlives this call (the watchdog removes it).
    static func makeTempDirectory(_ label: String) throws -> String {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw SystemTestError("mkdtemp failed") }
        return String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension PostgresURL {
    /// The database the URL names (its path, without the query).
    var databaseName: String {
        let path = text.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        return String(path.split(separator: "?").first ?? "")
    }
}

/// Path helpers for the test support.
enum FileSystemPath {
    /// The folder holding `path`.
    static func parent(_ path: String) -> String { String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
}
