import Glibc

// MARK: - FDWriter

/// A buffered writer to a file descriptor (64 KiB), flushed when full and on `flush()`.
final class FDWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The `errno` of the first write that failed (a full disk, a closed terminal), nil while every
    /// write went out. The rest of the output is dropped once one fails.
    private(set) var failure: Int32?
    /// True while a closed pipe (EPIPE) ends the process quietly, by SIGPIPE's default action, as
    /// `ledger events | head` expects; false for output that must be received (then it is a failure).
    var quietOnClosedPipe = true

    /// A writer to `fd`.
    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    /// Buffers `text`.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Buffers `bytes`; a piece as large as the buffer goes out at once, after what was buffered.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 1 << 16 else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 16 { flush() }
            return
        }
        flush()
        writeAll(bytes)
    }

    /// Writes out everything buffered; a failed write drops the rest and is kept in `failure`.
    func flush() {
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `raw` to the descriptor; after a failed write nothing more is written.
    private func writeAll(_ raw: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        var done = 0
        while done < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EPIPE && quietOnClosedPipe {
                // The reader is gone and nothing here must reach it: end as a pipeline expects.
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
            }
            if n <= 0 { failure = n < 0 ? errno : EIO; break }
            done += n
        }
    }
}
