import CLibpq
import Glibc

// MARK: - PostgresConnection: COPY out

extension PostgresConnection {
    /// Starts `sql`, a `COPY … TO STDOUT`; its data then comes from `copyData` until it returns false.
    func startCopyOut(_ sql: String) throws {
        guard let result = pq.exec(connection, sql) else { throw copyFailure(LibPQ.text(pq.errorMessage(connection))) }
        defer { pq.clear(result) }
        guard pq.resultStatus(result) == PGRES_COPY_OUT else {
            throw PostgresError(sqlState: pq.resultErrorField(result, Int32(Character("C").asciiValue!)).map { String(cString: $0) } ?? "",
                                LibPQ.text(pq.resultErrorMessage(result)), connectionLost: !isOpen)
        }
    }

    /// Calls `body` with the next message of the running COPY (one row, the first one after the
    /// header); false once the COPY has ended and the server said it succeeded.
    func copyData(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        var buffer: UnsafeMutablePointer<CChar>?
        let length = pq.getCopyData(connection, &buffer, 0)
        if length > 0, let buffer {
            defer { pq.freemem(buffer) }
            try buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { try body(UnsafeBufferPointer(start: $0, count: Int(length))) }
            return true
        }
        guard length == -1 else { throw copyFailure(LibPQ.text(pq.errorMessage(connection))) }
        // The COPY ended: its outcome is the next result.
        var failure: PostgresError?
        while let result = pq.getResult(connection) {
            if pq.resultStatus(result) != PGRES_COMMAND_OK, failure == nil {
                failure = PostgresError(sqlState: pq.resultErrorField(result, Int32(Character("C").asciiValue!)).map { String(cString: $0) } ?? "",
                                        LibPQ.text(pq.resultErrorMessage(result)), connectionLost: !isOpen)
            }
            pq.clear(result)
        }
        if let failure { throw failure }
        return false
    }

    private func copyFailure(_ message: String) -> PostgresError {
        PostgresError("the connection to PostgreSQL at \(url.redacted) failed during a read: \(message)", connectionLost: !isOpen)
    }
}
