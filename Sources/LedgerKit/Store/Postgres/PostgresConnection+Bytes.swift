import CLibpq
import Glibc

// MARK: - PostgresConnection: raw bytes

extension PostgresConnection {
    /// Runs `sql` with `$1…$n` bound to `parameters` as text and `$(n+1)` to `bytes` sent as they are
    /// (binary: a `bytea` with no escaping); with `binaryResults`, values come back as raw bytes too.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String], bytes: [UInt8]? = nil, binaryResults: Bool) throws -> PostgresResult {
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var lengths = parameters.map { Int32($0.utf8.count) }
        var formats = [Int32](repeating: 0, count: parameters.count)
        // A buffer with an address even when `bytes` is empty (its length says 0).
        let held = bytes.map { $0.isEmpty ? [0] : $0 } ?? []
        let result: OpaquePointer? = held.withUnsafeBufferPointer { blob in
            var values: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
            if bytes != nil {
                values.append(UnsafeRawPointer(blob.baseAddress!).assumingMemoryBound(to: CChar.self))
                lengths.append(Int32(clamping: bytes?.count ?? 0))
                formats.append(1)
            }
            return pq.execParams(connection, sql, Int32(values.count), nil, values, lengths, formats, binaryResults ? 1 : 0)
        }
        return try checked(result)
    }
}
