import CLibpq
import Glibc

// MARK: - Connecting

extension PostgresConnection {
    /// How the non-blocking attempt ended.
    private enum Attempt {
        /// Connected.
        case connected
        /// Failed, with libpq's reason.
        case failed(String)
        /// Left to libpq's blocking connect: a `connect_timeout` libpq would reject (it says how), or
        /// a timeout with more hosts to try (only libpq can move on to the next one).
        case handOver
    }

    /// A `connect_timeout` as libpq reads it.
    private enum ConnectTimeout {
        /// None (absent, 0 or negative): wait as long as the network does.
        case none
        /// Seconds for each address (libpq's floor: 2).
        case seconds(Int)
    }

    /// Opens a connection with `keywords`/`values` (`PQconnectStartParams`, `expand_dbname`).
    ///
    /// Started without blocking, so the notice processor is in place before the server can say
    /// anything: `CREATE TABLE IF NOT EXISTS` and friends send NOTICEs, and a server shutting down
    /// sends a WARNING, which libpq would otherwise print to standard error as lines of its own. The
    /// attempt keeps libpq's timeout rules: `connect_timeout` per address, restarted for each one.
    static func connect(_ url: PostgresURL, pq: LibPQ, keywords: [String], values: [String]) throws -> OpaquePointer {
        let started = withCStrings(keywords) { keys in withCStrings(values) { vals in pq.connectStartParams(keys, vals, 1) } }
        guard let started else { throw PostgresError("cannot connect to \(url.redacted): out of memory", connectionLost: true) }
        _ = pq.setNoticeProcessor(started, { _, _ in }, nil)
        switch drive(started, pq) {
        case .connected:
            return started
        case .failed(let reason):
            pq.finish(started)
            throw cannotConnect(url, reason)
        case .handOver:
            pq.finish(started)
        }
        let made = withCStrings(keywords) { keys in withCStrings(values) { vals in pq.connectdbParams(keys, vals, 1) } }
        guard let made else { throw PostgresError("cannot connect to \(url.redacted): out of memory", connectionLost: true) }
        guard pq.status(made) == CONNECTION_OK else {
            let reason = LibPQ.text(pq.errorMessage(made))
            pq.finish(made)
            throw cannotConnect(url, reason)
        }
        _ = pq.setNoticeProcessor(made, { _, _ in }, nil)
        return made
    }

    /// The one-line error for a failed connection.
    private static func cannotConnect(_ url: PostgresURL, _ reason: String) -> PostgresError {
        PostgresError("cannot connect to PostgreSQL at \(url.redacted): \(PostgresError.oneLine(reason))", connectionLost: true)
    }

    /// Drives `PQconnectPoll`, waiting on the socket with `poll(2)` (libpq leaves the timeout to the
    /// caller in this mode). Each address gets the whole `connect_timeout`: the deadline starts
    /// again whenever libpq moves to another socket.
    private static func drive(_ conn: OpaquePointer, _ pq: LibPQ) -> Attempt {
        guard pq.status(conn) != CONNECTION_BAD else { return .failed(LibPQ.text(pq.errorMessage(conn))) }
        guard let timeout = connectTimeout(of: conn, pq) else { return .handOver }
        var seconds: Int64?
        if case .seconds(let value) = timeout { seconds = Int64(value) }
        var socket = pq.socket(conn)
        var deadline = seconds.map { monotonicMillis() + $0 * 1000 }
        var state = PGRES_POLLING_WRITING  // what the documentation says to assume before the first poll
        while true {
            switch state {
            case PGRES_POLLING_OK: return .connected
            case PGRES_POLLING_FAILED: return .failed(LibPQ.text(pq.errorMessage(conn)))
            default: break
            }
            if pq.socket(conn) != socket {
                socket = pq.socket(conn)
                deadline = seconds.map { monotonicMillis() + $0 * 1000 }
            }
            var wait = pollfd(fd: socket, events: Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
            var waitMillis: Int32 = -1
            if let deadline {
                let left = deadline - monotonicMillis()
                guard left > 0 else { return timedOut(conn, pq) }
                waitMillis = Int32(clamping: left)
            }
            let ready = poll(&wait, 1, waitMillis)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return .failed("poll: \(String(cString: strerror(errno)))") }
            if ready == 0 { return timedOut(conn, pq) }
            state = pq.connectPoll(conn)
        }
    }

    /// The current address did not answer in time: libpq's blocking connect takes over when there
    /// are other hosts to try, else the attempt fails with libpq's words for it.
    private static func timedOut(_ conn: OpaquePointer, _ pq: LibPQ) -> Attempt {
        if option("host", of: conn, pq)?.contains(",") == true || option("hostaddr", of: conn, pq)?.contains(",") == true { return .handOver }
        let host = pq.host(conn).map { String(cString: $0) } ?? "", port = pq.port(conn).map { String(cString: $0) } ?? ""
        guard !host.isEmpty else { return .failed("timeout expired") }
        if host.hasPrefix("/") { return .failed("connection to server on socket \"\(host)/.s.PGSQL.\(port)\" failed: timeout expired") }
        return .failed("connection to server at \"\(host)\", port \(port) failed: timeout expired")
    }

    /// The connection's `connect_timeout`, read as libpq reads it (`parse_int_param`: an `int`,
    /// blanks around it allowed); nil when libpq would reject it.
    private static func connectTimeout(of conn: OpaquePointer, _ pq: LibPQ) -> ConnectTimeout? {
        guard let text = option("connect_timeout", of: conn, pq), !text.isEmpty else { return ConnectTimeout.none }
        var value = 0
        let valid = text.withCString { start -> Bool in
            var end: UnsafeMutablePointer<CChar>?
            errno = 0
            let parsed = strtol(start, &end, 10)
            guard let end, UnsafePointer(end) != start, errno == 0, let narrow = Int32(exactly: parsed) else { return false }
            var rest = UnsafePointer(end)
            while rest.pointee != 0 && isspace(Int32(UInt8(bitPattern: rest.pointee))) != 0 { rest += 1 }
            value = Int(narrow)
            return rest.pointee == 0
        }
        guard valid else { return nil }
        return value > 0 ? .seconds(max(2, value)) : ConnectTimeout.none
    }

    /// The value of connection option `keyword`, if set.
    private static func option(_ keyword: String, of conn: OpaquePointer, _ pq: LibPQ) -> String? {
        guard let options = pq.conninfo(conn) else { return nil }
        defer { pq.conninfoFree(options) }
        var at = options
        while let name = at.pointee.keyword {
            if String(cString: name) == keyword { return at.pointee.val.map { String(cString: $0) } }
            at += 1
        }
        return nil
    }

    /// Milliseconds of the monotonic clock.
    private static func monotonicMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
