import Glibc
import LedgerDomain
import LedgerKit

// MARK: - LogWriter

/// Writes a hash-chained v1 log the way the store does (`LineCodec.body`, `SHA256.hex`,
/// `LineCodec.line`), but into one large buffer flushed with big writes, and fsynced at the end.
final class LogWriter {
    /// Bytes gathered before a write.
    static let bufferSize = 8 << 20

    private let file: FileDescriptor
    private var buffer: [UInt8] = []
    private var offset = 0
    /// The head after the last line written.
    private(set) var head = Head.empty
    /// Bytes written so far (flushed or not).
    var bytes: Int { offset + buffer.count }

    /// Creates (or truncates) `path`.
    init(path: String) throws {
        file = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        buffer.reserveCapacity(Self.bufferSize + 4096)
    }

    /// Appends `event` as the next line.
    func append(_ event: GeneratedEvent) throws {
        let type = event.event.type
        let body = LineCodec.body(seq: head.seq + 1, id: event.id, at: event.at, type: type.rawValue, v: type.currentVersion,
                                  stream: event.stream, data: event.event.data, prev: head.hash)
        let hash = SHA256.hex(body)
        buffer.append(contentsOf: LineCodec.line(body: body, hash: hash))
        head = Head(seq: head.seq + 1, hash: hash)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes out the buffer.
    func flush() throws {
        try buffer.withUnsafeBytes { (raw) throws in try file.write(raw, at: offset) }
        offset += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes out the buffer and fsyncs, so no writeback of the log competes with later timings.
    func finish() throws {
        try flush()
        try file.sync()
    }
}
