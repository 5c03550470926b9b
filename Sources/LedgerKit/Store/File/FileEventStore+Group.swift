import LedgerDomain

// MARK: - FileEventStore, group commit

extension FileEventStore: GroupAppends {
    /// Appends independent batches (`GroupedAppend.independent`) under one lock, with one write and
    /// one `fdatasync`: each batch is checked on its own against the log as it stood before the
    /// group (its parts' versions, its condition), a refused one is left out with its refusal, and
    /// the others are written in order, each all or nothing as a lone append is. The outcome of each
    /// batch, in order. A failed write or sync fails every batch written with it (a failed sync
    /// poisons the store, as a lone append's does); none is retried.
    public func appendGroup(_ batches: [GroupedAppend]) -> [Result<[RecordedEvent], any Error>] {
        if let poisoned { return batches.map { _ in .failure(poisoned) } }
        var outcomes = [Result<[RecordedEvent], any Error>?](repeating: nil, count: batches.count)
        var decoded: [[(event: LedgerEvent, data: JSONObject)]?] = batches.map { _ in nil }
        for (k, screened) in GroupedAppend.screened(batches).enumerated() {
            switch screened {
            case .success(let events): decoded[k] = events
            case .failure(let error): outcomes[k] = .failure(error)
            }
        }
        do {
            try StoreError.mapping {
                let lock = try lockForAppend()
                defer { releaseWritersLock(lock) }
                let log = try logForAppend()
                try prepareForAppend(log)
                var accepted: [(index: Int, batch: WriteBatch)] = []
                for (k, batch) in batches.enumerated() where outcomes[k] == nil {
                    do {
                        try check(batch.parts, condition: batch.condition, log: log)
                        accepted.append((k, WriteBatch(parts: batch.parts, decoded: decoded[k]!, condition: batch.condition?.folded)))
                    } catch { outcomes[k] = .failure(error) }
                }
                guard !accepted.isEmpty else { return }
                do {
                    let recorded = try write(accepted.map(\.batch), log: log)
                    for ((k, _), events) in zip(accepted, recorded) { outcomes[k] = .success(events) }
                } catch {
                    for (k, _) in accepted { outcomes[k] = .failure(error) }
                }
                finishAppend()
            }
        } catch {
            for k in outcomes.indices where outcomes[k] == nil { outcomes[k] = .failure(error) }
        }
        return outcomes.map { $0! }
    }
}
