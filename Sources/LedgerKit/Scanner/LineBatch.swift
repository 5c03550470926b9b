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
    /// The bytes, starting at file offset `base` (in `buffer`, which the batch gives back to `memory`).
    let bytes: UnsafeBufferPointer<UInt8>
    /// The file offset of `bytes[0]`.
    let base: Int
    /// The complete lines (without their newline).
    let ranges: [Range<Int>]
    /// The incomplete last line of the file, when the file ends in one.
    let unterminated: Range<Int>?
    /// True when the file ends with this batch.
    let eof: Bool
    /// In the file's last batch: how many of its last complete lines are a batch the end of the
    /// file leaves open (`ChunkReader.openBatchLines`), a torn tail if they verify; else 0.
    let openBatchLines: Int
    /// The 1-based line number of `ranges[0]`.
    let firstLine: Int
    /// Lines per claimed block.
    private static let block = 64
    /// Per line, the facts of a line read in place (`state` 1), read where they lie, so the fold
    /// neither copies them nor retains their strings.
    private let facts: UnsafeMutablePointer<ReplayLine>
    /// Per line, any other prepared line (`state` 2).
    private let lines: UnsafeMutablePointer<LogScanner.PreparedLine>
    /// Per line: 0 not prepared, 1 facts, 2 another prepared line, 3 that line moved out by `take`.
    private let state: UnsafeMutablePointer<UInt8>
    /// The next block to claim (it may run past the last block).
    private let claims = Atomic<Int>(0)
    /// Where `bytes`, `ranges` and the per-line slots go back to.
    private let memory: BatchMemory
    private let buffer: BatchMemory.Bytes
    private let slots: BatchMemory.Slots

    /// A batch of the first `count` bytes of `buffer` (taken from `memory`, which gets it back with
    /// `ranges` when the batch ends).
    init(memory: BatchMemory, buffer: BatchMemory.Bytes, count: Int, base: Int, ranges: [Range<Int>], unterminated: Range<Int>?,
         eof: Bool, firstLine: Int, openBatchLines: Int = 0) {
        self.memory = memory; self.buffer = buffer; self.bytes = UnsafeBufferPointer(start: buffer.start, count: count)
        self.base = base; self.ranges = ranges; self.unterminated = unterminated
        self.eof = eof; self.firstLine = firstLine; self.openBatchLines = openBatchLines
        slots = memory.slots(atLeast: max(1, ranges.count))
        facts = slots.facts
        lines = slots.lines
        state = slots.state
    }

    deinit {
        // Every claimed block was prepared: the scanner waits for its worker before dropping a batch.
        for i in 0..<ranges.count {
            switch state[i] {
            case 1: (facts + i).deinitialize(count: 1)
            case 2: (lines + i).deinitialize(count: 1)
            default: break
            }
        }
        memory.give(slots)
        memory.give(buffer)
        memory.give(ranges)  // the only copy once this batch is gone, so it is reused, not copied
    }

    /// The 1-based line number of the line after this batch.
    var nextLine: Int { firstLine + ranges.count }

    /// The facts of line `index` where they lie, when it was read in place; valid while the batch
    /// lives (read once every block was prepared and waited for).
    func facts(_ index: Int) -> UnsafePointer<ReplayLine>? {
        state[index] == 1 ? UnsafePointer(facts + index) : nil
    }

    /// Prepared line `index`, once every block was prepared (and waited for): moved out, or for
    /// facts a copy (the rare line that fails the chain check). Each line is taken at most once.
    func take(_ index: Int) -> LogScanner.PreparedLine {
        switch state[index] {
        case 1: return .facts(facts[index])
        case 2:
            state[index] = 3
            return (lines + index).move()
        default: preconditionFailure("line \(index) was not prepared or was taken already")
        }
    }


    /// Claims and prepares blocks of lines until none is left (`fast`: see `LogScanner.scanFacts`).
    /// Any number of threads may call it at once; each block is prepared by exactly one.
    func prepareClaimed(fast: Bool, opener: any PersonalDataOpener) {
        let count = ranges.count
        guard claims.load(ordering: .relaxed) * Self.block < count else { return }
        let sha = fast ? SHA256Context() : nil
        while true {
            let lower = claims.wrappingAdd(1, ordering: .relaxed).oldValue * Self.block
            guard lower < count else { return }
            for i in lower..<min(count, lower + Self.block) {
                let id = LogScanner.prepare(UnsafeBufferPointer(rebasing: bytes[ranges[i]]), number: firstLine + i, sha: sha, opener: opener,
                                            facts: facts + i, other: lines + i)
                state[i] = id == nil ? 2 : 1
            }
        }
    }
}
