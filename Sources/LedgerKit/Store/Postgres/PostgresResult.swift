import CLibpq

// MARK: - PostgresResult

/// The rows of one successful statement, in text format. Owns the libpq result and clears it on deinit.
public final class PostgresResult {
    private let result: OpaquePointer
    private let pq: LibPQ

    init(_ result: OpaquePointer, _ pq: LibPQ) { self.result = result; self.pq = pq }

    deinit { pq.clear(result) }

    /// The number of rows.
    public var count: Int { Int(pq.ntuples(result)) }

    /// The number of rows an `INSERT`/`UPDATE`/`DELETE` touched.
    public var affectedRows: Int { Int(LibPQ.text(pq.cmdTuples(result))) ?? 0 }

    /// True when the value at (`row`, `column`) is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool { pq.getisnull(result, Int32(row), Int32(column)) == 1 }

    /// The value at (`row`, `column`) as text, nil for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column) else { return nil }
        return bytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The value at (`row`, `column`) as an integer, nil for NULL or non-numbers.
    public func int(_ row: Int, _ column: Int) -> Int? { string(row, column).flatMap { Int($0) } }

    /// Calls `body` with the raw bytes of the value at (`row`, `column`) (valid only during the call).
    public func bytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let length = Int(pq.getlength(result, Int32(row), Int32(column)))
        guard let pointer = pq.getvalue(result, Int32(row), Int32(column)) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try pointer.withMemoryRebound(to: UInt8.self, capacity: max(length, 1)) { bytes in
            try body(UnsafeBufferPointer(start: bytes, count: length))
        }
    }
}
