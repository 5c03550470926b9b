import CLibpq

// MARK: - PostgresConnection: pipelines

extension PostgresConnection {
    /// One parameterized statement of a pipeline.
    public struct Statement {
        /// The SQL, `$1…$n` bound to `parameters`.
        public var sql: String
        /// Text parameters; nil is NULL.
        public var parameters: [String?]

        /// A statement from its SQL and parameters.
        public init(_ sql: String, _ parameters: [String?] = []) { self.sql = sql; self.parameters = parameters }
    }

    /// Runs `statements` in order in one round trip (libpq pipeline mode, one sync point) and returns
    /// their results. The first failure is thrown as `execute` throws it; the server skips every
    /// statement after it (inside a transaction, the transaction is then aborted). An empty list
    /// sends nothing.
    @discardableResult
    public func pipeline(_ statements: [Statement]) throws -> [PostgresResult] {
        guard !statements.isEmpty else { return [] }
        guard pq.enterPipelineMode(connection) == 1 else { throw lostOrFailed(LibPQ.text(pq.errorMessage(connection))) }
        defer { _ = pq.exitPipelineMode(connection) }
        var sent = 0
        for statement in statements {
            let ok = Self.withOptionalCStrings(statement.parameters) { values in
                pq.sendQueryParams(connection, statement.sql, Int32(statement.parameters.count), nil, values, nil, nil, 0)
            }
            guard ok == 1 else { break }
            sent += 1
        }
        let sendFailure = sent < statements.count ? lostOrFailed(LibPQ.text(pq.errorMessage(connection))) : nil
        guard pq.pipelineSync(connection) == 1 else { throw sendFailure ?? lostOrFailed(LibPQ.text(pq.errorMessage(connection))) }
        var results: [PostgresResult] = [], failure: (any Error)? = sendFailure
        for _ in 0..<sent {
            // A statement's results end with a null one; a lost connection may give no result at all.
            guard let result = pq.getResult(connection) else {
                if failure == nil { failure = lostOrFailed(LibPQ.text(pq.errorMessage(connection))) }
                break
            }
            if pq.resultStatus(result) == PGRES_PIPELINE_ABORTED || failure != nil {
                pq.clear(result)
            } else {
                do { results.append(try checked(result)) } catch { failure = error }
            }
            while let extra = pq.getResult(connection) { pq.clear(extra) }
        }
        // The sync point's own result, after which the connection leaves pipeline mode.
        if isOpen, let sync = pq.getResult(connection) { pq.clear(sync) }
        if let failure { throw failure }
        return results
    }
}
