import Glibc
import LedgerDomain
import Synchronization

// MARK: - BatchMemory

/// The memory one read's batches share and hand round: each chunk's bytes, its line ranges and its
/// per-line slots. A read holds at most three batches at once (the one checked, the one prepared,
/// the one read ahead), so it allocates about three sets and reuses them for every chunk of the
/// log. Allocating a megabyte or more per chunk instead either had the allocator map, fault in and
/// unmap it every time, or left the freed chunks between the views' rows, where they kept pages
/// resident that the rows only partly reused (about 9 MiB of `users`' peak at 1,000,000 events).
///
/// Buffers hold no Swift values while pooled: a batch deinitializes its slots before it gives them
/// back. Any thread may take and give.
final class BatchMemory: @unchecked Sendable {
    /// A byte buffer: where it starts and how many bytes it holds room for.
    struct Bytes: Pooled, @unchecked Sendable {
        let start: UnsafeMutablePointer<UInt8>
        let capacity: Int
    }

    /// Uninitialized per-line slots for `capacity` lines (`LineBatch`'s facts, other lines, states).
    struct Slots: Pooled, @unchecked Sendable {
        let facts: UnsafeMutablePointer<ReplayLine>
        let lines: UnsafeMutablePointer<LogScanner.PreparedLine>
        let state: UnsafeMutablePointer<UInt8>
        let capacity: Int
    }

    private struct Pool {
        var bytes: [Bytes] = []
        var slots: [Slots] = []
        var ranges: [[Range<Int>]] = []
    }

    private let pool = Mutex(Pool())
    /// Buffers of each kind kept for reuse; more are freed when given back.
    private static let kept = 4
    /// The smallest byte buffer allocated: a chunk and a carried line.
    static let bytesAtLeast = LogScanner.chunkSize + LogScanner.chunkSize / 4
    /// The fewest line slots allocated (a chunk of the shortest lines ledger writes holds fewer).
    static let slotsAtLeast = 2048

    /// An empty pool.
    init() {}

    deinit {
        pool.withLock { pool in
            for b in pool.bytes { b.start.deallocate() }
            for s in pool.slots { Self.free(s) }
        }
    }

    // MARK: - Bytes

    /// A buffer with room for at least `count` bytes: a pooled one, else a new one.
    func bytes(atLeast count: Int) -> Bytes {
        if let reused = pool.withLock({ Self.take(&$0.bytes, atLeast: count) }) { return reused }
        let capacity = max(count, Self.bytesAtLeast)
        return Bytes(start: .allocate(capacity: capacity), capacity: capacity)
    }

    /// Takes `bytes` back for reuse (the smallest is freed when the pool is full).
    func give(_ bytes: Bytes) {
        pool.withLock { Self.keep(bytes, in: &$0.bytes) }?.start.deallocate()
    }

    // MARK: - Line slots

    /// Uninitialized slots for at least `count` lines, their states all 0.
    func slots(atLeast count: Int) -> Slots {
        let slots = pool.withLock { Self.take(&$0.slots, atLeast: count) } ?? Self.allocateSlots(max(count, Self.slotsAtLeast))
        slots.state.update(repeating: 0, count: count)
        return slots
    }

    /// Takes `slots` back (every fact and line in them deinitialized).
    func give(_ slots: Slots) {
        if let dropped = pool.withLock({ Self.keep(slots, in: &$0.slots) }) { Self.free(dropped) }
    }

    // MARK: - The pool's rule

    /// A pooled buffer: what it holds room for.
    protocol Pooled { var capacity: Int { get } }

    /// The first of `free` with room for `count`, taken out of it.
    private static func take<Item: Pooled>(_ free: inout [Item], atLeast count: Int) -> Item? {
        free.firstIndex { $0.capacity >= count }.map { free.remove(at: $0) }
    }

    /// Adds `item` to `free`; when that makes more than `kept`, takes out the smallest and returns it to be freed.
    private static func keep<Item: Pooled>(_ item: Item, in free: inout [Item]) -> Item? {
        free.append(item)
        guard free.count > kept, let smallest = free.indices.min(by: { free[$0].capacity < free[$1].capacity }) else { return nil }
        return free.remove(at: smallest)
    }

    private static func allocateSlots(_ capacity: Int) -> Slots {
        let state = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        state.initialize(repeating: 0, count: capacity)
        return Slots(facts: .allocate(capacity: capacity), lines: .allocate(capacity: capacity), state: state, capacity: capacity)
    }

    private static func free(_ slots: Slots) {
        slots.facts.deallocate()
        slots.lines.deallocate()
        slots.state.deallocate()
    }

    // MARK: - Line ranges

    /// An empty array of line ranges, with a pooled one's room when there is one.
    func ranges() -> [Range<Int>] {
        var ranges = pool.withLock { $0.ranges.popLast() } ?? []
        ranges.removeAll(keepingCapacity: true)
        return ranges
    }

    /// Takes `ranges` back for reuse.
    func give(_ ranges: [Range<Int>]) {
        pool.withLock { pool in
            if pool.ranges.count < Self.kept { pool.ranges.append(ranges) }
        }
    }
}
