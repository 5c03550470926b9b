import CMemoryHints

// MARK: - MemoryHint

/// Hints to the processor about memory about to be read: the compiler's prefetch, which reads
/// nothing and never faults, so a stale or wrong address costs a wasted fetch and nothing else.
enum MemoryHint {
    /// Asks for the cache line at `address` (see `LedgerViews.prefetch`, `AccountKeyTable.prefetch`).
    @inline(__always)
    static func prefetch(_ address: UnsafeRawPointer) { ledger_prefetch(address) }
}
