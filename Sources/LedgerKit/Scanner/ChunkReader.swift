import Glibc
import LedgerDomain

// MARK: - ChunkReader

/// Reads a log (a file, or a store's streamed lines) in chunks of complete lines. A line that ends exactly where the bytes read so far end
/// is held back until the next read tells whether it is the file's last line.
struct ChunkReader {
    private let file: any LogBytes
    private var offset: Int
    private var carry: [UInt8] = []
    private let memory: BatchMemory
    private(set) var eof = false

    /// A reader of `file` from byte `offset`, its batches in `memory`'s buffers.
    init(_ file: any LogBytes, from offset: Int, memory: BatchMemory) { self.file = file; self.offset = offset; self.memory = memory }

    /// The next batch (its lines numbered from `firstLine`); at least one line, or the end of the file.
    mutating func next(firstLine: Int) throws -> LineBatch {
        var buffer = memory.bytes(atLeast: carry.count + LogScanner.chunkSize)
        var count = carry.count
        if count > 0 { _ = carry.withUnsafeBufferPointer { memcpy(buffer.start, $0.baseAddress!, count) } }
        let base = offset - carry.count
        carry = []
        var ranges = memory.ranges()
        while true {
            // Read what the file holds now, at most a chunk (the size is a hint: the file may grow).
            let remaining = ((try? file.size()) ?? 0) - offset
            let want = max(4096, min(LogScanner.chunkSize, remaining), count)
            if count + want > buffer.capacity {
                let bigger = memory.bytes(atLeast: count + want)
                memcpy(bigger.start, buffer.start, count)
                memory.give(buffer)
                buffer = bigger
            }
            let n: Int
            do {
                n = try file.read(into: buffer.start + count, count: want, at: offset)
            } catch {
                memory.give(buffer)
                throw error
            }
            count += n
            offset += n
            if n == 0 { eof = true }
            ranges.removeAll(keepingCapacity: true)
            let all = UnsafeBufferPointer(start: UnsafePointer(buffer.start), count: count)
            var cursor = 0  // where the bytes after the lines returned start
            while cursor < count {
                guard let found = memchr(all.baseAddress! + cursor, 0x0A, count - cursor) else { break }
                let newline = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - all.baseAddress!
                if newline + 1 == count && !eof { break }
                ranges.append(cursor..<newline)
                cursor = newline + 1
            }
            // The lines of a batch left open at the end (those of a batch cut by a crash, at the end
            // of the log) stay together: in the next read, or in the last one, which decides.
            let open = Self.openBatchLines(ranges, in: all)
            if !eof && open > 0 {
                cursor = ranges[ranges.count - open].lowerBound
                ranges.removeLast(open)
            }
            guard !ranges.isEmpty || eof else { continue }  // a line, or an open batch, longer than what was read: read on
            var unterminated: Range<Int>?
            if eof {
                if cursor < count { unterminated = cursor..<count }
            } else {
                carry = Array(all[cursor..<count])
                count = cursor
            }
            return LineBatch(memory: memory, buffer: buffer, count: count, base: base, ranges: ranges, unterminated: unterminated,
                             eof: eof, firstLine: firstLine, openBatchLines: eof ? open : 0)
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
