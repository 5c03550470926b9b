import LedgerDomain

// MARK: - PostgresEventStore, group commit

extension PostgresEventStore: GroupAppends {
    /// Appends independent batches (`GroupedAppend.independent`) in one transaction (`appendOnce`):
    /// each batch is checked on its own (its parts' versions, its condition) under the append lock,
    /// a refused one is left out with its refusal, and the others commit together, each all or
    /// nothing. The outcome of each batch, in order.
    ///
    /// A transaction that fails as a whole fails its batches as follows, none retried in silence:
    /// a lost connection before `COMMIT` fails every batch with `unavailable` (the server rolled it
    /// all back), a `COMMIT` whose answer was lost fails every batch with `notDurable` (each may or
    /// may not be stored). A statement the server refused before `COMMIT` (it rolled the whole
    /// transaction back: nothing of it is stored) may be one batch's doing, so each batch is then
    /// appended alone, in a transaction of its own, and gets its own outcome.
    /// A batch with a folded condition is refused here: it is appended alone (`append` does).
    public func appendGroup(_ batches: [GroupedAppend]) -> [Result<[RecordedEvent], any Error>] {
        var outcomes = [Result<[RecordedEvent], any Error>?](repeating: nil, count: batches.count)
        var admitted: [(index: Int, batch: TransactionBatch)] = []
        for (k, screened) in GroupedAppend.screened(batches).enumerated() {
            switch screened {
            case .success(let events) where batches[k].condition?.folded == nil:
                admitted.append((k, TransactionBatch(parts: batches[k].parts, decoded: events.map(\.event), condition: batches[k].condition)))
            case .success:
                outcomes[k] = .failure(StoreError(.invalidBatch, "a batch with a folded condition is appended alone, not in a group"))
            case .failure(let error):
                outcomes[k] = .failure(error)
            }
        }
        guard !admitted.isEmpty else { return outcomes.map { $0! } }
        do {
            for ((k, _), outcome) in zip(admitted, try appendTransaction(admitted.map(\.batch))) { outcomes[k] = outcome }
        } catch let error as StoreError where error.code == .unavailable || error.code == .notDurable {
            for (k, _) in admitted { outcomes[k] = .failure(error) }
        } catch {
            for (k, batch) in admitted {
                outcomes[k] = Result { try appendTransaction([batch])[0].get() }
            }
        }
        return outcomes.map { $0! }
    }
}
