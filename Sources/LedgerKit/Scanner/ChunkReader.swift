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
            var cursor = 0
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
            guard !ranges.isEmpty || eof else { continue }  // a line longer than what was read: read on
            var unterminated: Range<Int>?
            if eof {
                if cursor < bytes.count { unterminated = cursor..<bytes.count }
            } else {
                carry = Array(bytes[cursor...])
                bytes.removeLast(bytes.count - cursor)
            }
            return LineBatch(bytes: bytes, base: base, ranges: ranges, unterminated: unterminated, eof: eof, firstLine: firstLine)
        }
    }
}
