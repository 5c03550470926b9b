import LedgerDomain

// MARK: - GroupAppends

/// A store that appends a group of independent batches (`GroupedAppend.independent`) at once, each
/// batch checked and answered on its own: the file store with one write and one `fdatasync`
/// (`FileEventStore.appendGroup`), PostgreSQL in one transaction (`PostgresEventStore.appendGroup`).
/// What `GroupCommitter` drives.
public protocol GroupAppends: AnyObject {
    /// Appends `batches`, each all or nothing and checked on its own (its parts' versions, its
    /// condition); returns each batch's recorded events or its refusal, in order. A failure of the
    /// write or commit they share fails every batch written with it; none is retried.
    func appendGroup(_ batches: [GroupedAppend]) -> [Result<[RecordedEvent], any Error>]
}
