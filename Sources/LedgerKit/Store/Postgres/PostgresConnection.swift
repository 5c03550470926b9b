import CLibpq
import Glibc

// MARK: - PostgresConnection

/// One libpq connection: parameterized statements (text parameters, `PQexecParams`), transactions,
/// and LISTEN/NOTIFY. Not shared between threads; closed on deinit.
public final class PostgresConnection {
    /// The server, password redacted, for messages.
    public let url: PostgresURL
    /// The libpq connection (`PGconn *`).
    let connection: OpaquePointer
    /// libpq's functions (`LibPQ`).
    let pq: LibPQ

    /// Connects to `url`; throws a one-line `PostgresError` naming the server and the problem.
    public init(_ url: PostgresURL, connectTimeoutSeconds: Int = 10) throws {
        self.url = url
        var keywords = ["dbname", "fallback_application_name"]
        var values = [url.text, "ledger"]
        if !url.text.contains("connect_timeout") {
            keywords.append("connect_timeout")
            values.append(String(connectTimeoutSeconds))
        }
        let pq = try LibPQ.functions()
        self.pq = pq
        connection = try Self.connect(url, pq: pq, keywords: keywords, values: values)
    }

    deinit { pq.finish(connection) }

    /// True while the connection is usable.
    public var isOpen: Bool { pq.status(connection) == CONNECTION_OK }

    /// The server process id of this connection (what `pg_terminate_backend` takes).
    public var backendPID: Int32 { pq.backendPID(connection) }

    // MARK: - Statements

    /// Runs `sql` with `$1…$n` bound to `parameters` (text; nil is NULL). Throws `PostgresError` with
    /// the server's message and SQLSTATE, or `connectionLost` when the connection is gone.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        let result: OpaquePointer? = Self.withOptionalCStrings(parameters) { values in
            pq.execParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try checked(result)
    }

    /// The rows of a statement's `result`, or the failure it reports (the result is cleared then).
    func checked(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else { throw lostOrFailed(LibPQ.text(pq.errorMessage(connection))) }
        switch pq.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PostgresResult(result, pq)
        default:
            let state = field(result, "C") ?? ""
            let message = field(result, "M") ?? LibPQ.text(pq.resultErrorMessage(result))
            let constraint = field(result, "n")
            pq.clear(result)
            if isOpen == false || state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03" {
                throw PostgresError(sqlState: state, "the connection to PostgreSQL at \(url.redacted) was lost: \(message)", connectionLost: true)
            }
            throw PostgresError(sqlState: state, message, constraint: constraint)
        }
    }

    func lostOrFailed(_ message: String) -> PostgresError {
        PostgresError("the connection to PostgreSQL at \(url.redacted) was lost: \(message)", connectionLost: !isOpen)
    }

    private func field(_ result: OpaquePointer, _ code: Character) -> String? {
        pq.resultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
    }

    // MARK: - Transactions

    /// Runs `body` between `BEGIN` and `COMMIT`; any error rolls back (when the connection is still there) and is rethrown.
    /// Success means `COMMIT` returned: with `synchronous_commit` on, the transaction is durable.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            if isOpen { _ = try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return value
    }

    // MARK: - LISTEN/NOTIFY

    /// `LISTEN channel` (an identifier of lowercase letters and `_`).
    public func listen(_ channel: String) throws {
        precondition(channel.allSatisfy { $0 == "_" || ("a"..."z").contains($0) }, "channel names are plain identifiers")
        try execute("LISTEN \(channel)")
    }

    /// Waits up to `milliseconds` for a notification on a channel this connection listens to.
    /// Returns the payloads that arrived (empty on timeout); throws when the connection is lost.
    public func waitForNotifications(milliseconds: Int32) throws -> [String] {
        var payloads = drainNotifications()
        guard payloads.isEmpty else { return payloads }
        var descriptor = pollfd(fd: pq.socket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw lostOrFailed("no socket") }
        let ready = poll(&descriptor, 1, milliseconds)
        if ready > 0 {
            guard pq.consumeInput(connection) == 1 else { throw lostOrFailed(LibPQ.text(pq.errorMessage(connection))) }
            payloads = drainNotifications()
        }
        return payloads
    }

    private func drainNotifications() -> [String] {
        var payloads: [String] = []
        while let notice = pq.notifies(connection) {
            payloads.append(String(cString: notice.pointee.extra))
            pq.freemem(notice)
        }
        return payloads
    }

    // MARK: - C strings

    static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func withOptionalCStrings<T>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        guard !strings.isEmpty else { return body(nil) }
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension PostgresConnection {
    /// A new connection for a store, a failure to connect reported as `StoreError(.unavailable)`;
    /// a store a newer build migrated is refused here, for every read and write alike.
    static func forStore(_ url: PostgresURL) throws -> PostgresConnection {
        do {
            let connection = try PostgresConnection(url)
            try PostgresEventStore.refuseNewerStore(connection)
            return connection
        } catch let error as PostgresError {
            throw StoreError(.unavailable, error.message)
        }
    }
}
