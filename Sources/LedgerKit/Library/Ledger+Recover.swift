import LedgerDomain

// MARK: - Ledger, recovery after a crash

extension Ledger {
    /// What `recover` did.
    public struct Recovery: Sendable, Equatable {
        /// The registrations finished or compensated, the orphan files removed, a torn tail repaired.
        public let report: RecoveryReport
        /// With `acceptHistory`: the caches discarded (their paths, or the PostgreSQL tables' names).
        public let discardedCaches: [String]
    }

    /// `ledger recover`: finishes the registrations whose process died (compensating the partial
    /// ones), removes image files no event owns and temporary files of dead writers, and repairs a torn
    /// tail; decided from the whole verified log. With `acceptHistory`, first discards the caches that
    /// remember another history (after restoring the log from a backup on purpose: writers then refuse
    /// with `history-rewritten`).
    public func recover(acceptHistory: Bool = false) async throws(LedgerError) -> Recovery {
        let configuration = configuration
        return try await perform { call in
            var discarded: [String] = []
            if acceptHistory {
                switch call.store {
                case let store as FileEventStore: discarded = try store.discardCaches()
                case let store as PostgresEventStore: discarded = try store.discardCaches()
                default: break
                }
            }
            let coordinator = RegistrationCoordinator(
                store: call.store, blobs: FileBlobStore(directory: configuration.directory), directory: configuration.directory,
                clock: SystemClock(), random: SecureRandom(), hasher: PasswordHasher(cost: configuration.hashCost),
                failpoints: configuration.failpoints, locks: call.registrationLocks)
            coordinator.beforeCrash = configuration.beforeCrash
            return Recovery(report: try coordinator.recover(), discardedCaches: discarded)
        }
    }
}
