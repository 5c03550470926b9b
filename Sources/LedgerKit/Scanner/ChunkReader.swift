import Glibc
import LedgerDomain

// MARK: - ChunkReader

/// Reads a log (a file, or a store's streamed lines) in chunks of complete lines. A line that ends exactly where the bytes read so far end
/// is held back until the next read tells whether it is the file's last line.
struct ChunkReader {
    private let file: any LogBytes
    private var offset: Int
    private var carry: [UInt8] = []
    private(set) var eof = false

    /// A reader of `file` from byte `offset`.
    init(_ file: any LogBytes, from offset: Int) { self.file = file; self.offset = offset }

    /// The next batch (its lines numbered from `firstLine`); at least one line, or the end of the file.
    mutating func next(firstLine: Int) throws -> LineBatch {
        var bytes = carry
        let base = offset - carry.count
        carry = []
        while true {
            // Read what the file holds now, at most a chunk (the size is a hint: the file may grow).
            let remaining = ((try? file.size()) ?? 0) - offset
            let want = max(4096, min(LogScanner.chunkSize, remaining), bytes.count)
            let old = bytes.count
            let readOffset = offset
            var n = 0
            bytes = try [UInt8](unsafeUninitializedCapacity: old + want) { (buffer, count) throws in
                if old > 0 { _ = bytes.withUnsafeBufferPointer { memcpy(buffer.baseAddress!, $0.baseAddress!, old) } }
                count = old
                n = try file.read(into: buffer.baseAddress! + old, count: want, at: readOffset)
                count = old + n
            }
            offset += n
            if n == 0 { eof = true }
            var ranges: [Range<Int>] = []
            var cursor = 0  // where the bytes after the lines returned start
            bytes.withUnsafeBufferPointer { all in
                let end = all.count
                while cursor < end {
                    guard let found = memchr(all.baseAddress! + cursor, 0x0A, end - cursor) else { break }
                    let newline = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - all.baseAddress!
                    if newline + 1 == end && !eof { break }
                    ranges.append(cursor..<newline)
                    cursor = newline + 1
                }
            }
            // The lines of a batch left open at the end (those of a batch cut by a crash, at the end
            // of the log) stay together: in the next read, or in the last one, which decides.
            let open = bytes.withUnsafeBufferPointer { Self.openBatchLines(ranges, in: $0) }
            if !eof && open > 0 {
                cursor = ranges[ranges.count - open].lowerBound
                ranges.removeLast(open)
            }
            guard !ranges.isEmpty || eof else { continue }  // a line, or an open batch, longer than what was read: read on
            var unterminated: Range<Int>?
            if eof {
                if cursor < bytes.count { unterminated = cursor..<bytes.count }
            } else {
                carry = Array(bytes[cursor...])
                bytes.removeLast(bytes.count - cursor)
            }
            return LineBatch(bytes: bytes, base: base, ranges: ranges, unterminated: unterminated, eof: eof, firstLine: firstLine,
                             openBatchLines: eof ? open : 0)
        }
    }

    /// How many of the last `ranges` are the lines of a batch still open after them: the last says
    /// `[k,n]` with `k < n`, and the `k - 1` before it `[1,n]` … `[k-1,n]` (fewer when `ranges` start
    /// inside the batch). 0 when the last line closes its batch or has no mark, and when the lines
    /// before it do not continue as their marks say: then they are not a batch, and the chain check
    /// names their damage. One decode per read, `k` when a batch is open.
    static func openBatchLines(_ ranges: [Range<Int>], in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        func markOf(_ range: Range<Int>) -> BatchMark? {
            (try? LineCodec.decode(UnsafeBufferPointer(rebasing: bytes[range]), lineNumber: 0))?.0.batchMark
        }
        guard let last = ranges.last, let mark = markOf(last), mark.leavesBatchOpen else { return 0 }
        var lines = 1
        while lines < mark.index && lines < ranges.count {
            guard let before = markOf(ranges[ranges.count - 1 - lines]),
                  before == BatchMark(index: mark.index - lines, count: mark.count) else { return 0 }
            lines += 1
        }
        return lines
    }
}
