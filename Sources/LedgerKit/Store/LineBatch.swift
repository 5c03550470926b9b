import Dispatch
import Glibc
import LedgerDomain
import Synchronization

// MARK: - LineBatch

/// One chunk of a log: its bytes, the complete lines in it, and (once prepared) each line decoded
/// and hashed. A class so a worker can prepare it while the scanner checks the batch before it.
///
/// Lines are prepared in blocks that threads claim from a shared counter (`prepareClaimed`): a
/// worker starts on the batch, and the scanner, once it has checked the batch before, joins in on
/// what is left, so neither waits on a fixed share of the other's work.
final class LineBatch: @unchecked Sendable {
    /// The bytes, starting at file offset `base`.
    let bytes: [UInt8]
    /// The file offset of `bytes[0]`.
    let base: Int
    /// The complete lines (without their newline).
    let ranges: [Range<Int>]
    /// The incomplete last line of the file, when the file ends in one.
    let unterminated: Range<Int>?
    /// True when the file ends with this batch.
    let eof: Bool
    /// The 1-based line number of `ranges[0]`.
    let firstLine: Int
    /// Lines per claimed block.
    private static let block = 64
    /// One slot per line, initialized block by block as blocks are prepared.
    private let lines: UnsafeMutablePointer<LogScanner.PreparedLine>
    /// The ids of the lines read in place (zero bits for the others), for the checker to load ahead.
    private let ids: UnsafeMutablePointer<UUIDBits>
    /// The next block to claim (it may run past the last block).
    private let claims = Atomic<Int>(0)
    /// Lines moved out by `take` (the scanner's thread only).
    private var taken = 0

    init(bytes: [UInt8], base: Int, ranges: [Range<Int>], unterminated: Range<Int>?, eof: Bool, firstLine: Int) {
        self.bytes = bytes; self.base = base; self.ranges = ranges; self.unterminated = unterminated
        self.eof = eof; self.firstLine = firstLine
        lines = .allocate(capacity: max(1, ranges.count))
        ids = .allocate(capacity: max(1, ranges.count))
    }

    deinit {
        // Every claimed block was prepared: the scanner waits for its worker before dropping a batch.
        let prepared = min(ranges.count, claims.load(ordering: .relaxed) * Self.block)
        if prepared > taken { (lines + taken).deinitialize(count: prepared - taken) }
        lines.deallocate()
        ids.deallocate()
    }

    /// The 1-based line number of the line after this batch.
    var nextLine: Int { firstLine + ranges.count }

    /// Moves prepared line `index` out, once every block was prepared (and waited for). Lines are
    /// taken in order, each at most once: the scanner hands each on without copying it.
    func take(_ index: Int) -> LogScanner.PreparedLine {
        taken = index + 1
        return (lines + index).move()
    }

    /// The ids of the lines read in place, zero bits for the others; read like `prepared`.
    var factIDs: UnsafeBufferPointer<UUIDBits> { UnsafeBufferPointer(start: ids, count: ranges.count) }

    /// Claims and prepares blocks of lines until none is left (`fast`: see `LogScanner.scanFacts`).
    /// Any number of threads may call it at once; each block is prepared by exactly one.
    func prepareClaimed(fast: Bool) {
        let count = ranges.count
        guard claims.load(ordering: .relaxed) * Self.block < count else { return }
        let sha = fast ? SHA256Context() : nil
        bytes.withUnsafeBufferPointer { all in
            while true {
                let lower = claims.wrappingAdd(1, ordering: .relaxed).oldValue * Self.block
                guard lower < count else { return }
                for i in lower..<min(count, lower + Self.block) {
                    let id = LogScanner.prepare(UnsafeBufferPointer(rebasing: all[ranges[i]]), number: firstLine + i, sha: sha, into: lines + i)
                    (ids + i).initialize(to: id ?? .zero)
                }
            }
        }
    }
}

// MARK: - ChunkReader

/// Reads a log in chunks of complete lines. A line that ends exactly where the bytes read so far end
/// is held back until the next read tells whether it is the file's last line.
struct ChunkReader {
    private let file: FileDescriptor
    private var offset: Int
    private var carry: [UInt8] = []
    private(set) var eof = false

    /// A reader of `file` from byte `offset`.
    init(_ file: FileDescriptor, from offset: Int) { self.file = file; self.offset = offset }

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
