import LedgerDomain

// MARK: - FileEventStore: export

extension FileEventStore {
    /// What `exportLines` found.
    public typealias ExportOutcome = LogExport.Outcome

    /// Hands `write` the log's lines exactly as stored, newlines included, under the shared lock:
    /// each line verified first as `verify` checks it (`LogExport`).
    public func exportLines(_ write: (UnsafeRawBufferPointer) -> Void) throws -> ExportOutcome {
        var outcome = ExportOutcome.missing
        try withReadLock { log in
            outcome = try LogExport.lines(open: { log }, lines: (try log.size()) / 450, write)
        }
        return outcome
    }
}
