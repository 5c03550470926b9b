import Glibc
import LedgerDomain

// MARK: - FileEventStore: accepting the log's history

extension FileEventStore {
    /// The operator's deliberate way back after a legitimate restore from backup, when writers
    /// refuse with `history-rewritten`: under the exclusive lock, removes the caches beside the log —
    /// the writers' index (and any half-built copy), its checkpoint, the views' checkpoint and the Merkle tree's state — so the
    /// next writer and read rebuild them from the log as it now is. Returns the paths it removed.
    /// Only for a log the operator has checked (`ledger verify`, `--expect`): the caches were the
    /// evidence that another history had been seen.
    public func discardCaches() throws -> [String] {
        try StoreError.mapping {
            guard FileSystem.exists(directory) else { return [] }
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            defer { releaseWritersLock(lock) }
            var removed: [String] = []
            for path in [indexPath, indexPath + ".new", indexPath + ".grow", indexCheckpointPath, Checkpoint.path(forLog: logPath),
                             TreeFile.path(forLog: logPath)]
            where FileSystem.exists(path) {
                try FileSystem.remove(path)
                removed.append(path)
            }
            prefix = VerifiedPrefix()  // this process forgets the table it may have mapped
            return removed
        }
    }
}
