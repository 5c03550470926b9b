import Glibc

// MARK: - StandardError

/// Unbuffered lines to standard error from any thread: the library's notices, which arrive while a
/// call runs on one of its threads (standard output holds nothing yet then, so nothing goes out of order).
enum StandardError {
    /// Writes `text` to descriptor 2 at once; a failed write is dropped (a notice is advice).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
