import LedgerDomain

// MARK: - Ledger, checks

extension Ledger {
    /// What `verify()` found: as `ledger verify --json` reports it.
    public struct Verification: Sendable, Equatable {
        /// Complete lines checked.
        public let events: Int
        /// The head of the intact prefix.
        public let head: Head
        /// The problems, in line order (at most 100): each its kind (`bad-hash`, `broken-chain`,
        /// `cache-mismatch`, `history-rewritten`, `missing-key`, …), line and message.
        public let problems: [Problem]
        /// True when nothing was found.
        public var ok: Bool { problems.isEmpty }

        /// One problem.
        public struct Problem: Sendable, Equatable {
            /// The stable kind, as `ledger verify` names it.
            public let kind: String
            /// The line it is on (1-based; 0 when it is about the whole log).
            public let line: Int
            /// One line saying what is wrong.
            public let message: String
        }
    }

    /// One anomaly `ledger audit` reports: something that must never exist in a healthy ledger.
    public struct Anomaly: Sendable, Equatable {
        /// The stable kind (`interrupted`, `orphan-image-file`, `duplicate-live-account`, …).
        public let kind: String
        /// The member naming the subject (`registration`, `uid`, `imageName` or `file`), and its value.
        public let key: String, value: String
        /// One line saying what it is.
        public let message: String
    }

    /// Verifies the whole log from its first line (JSON, hashes, chain, types, data, personal
    /// members' keys) and the caches beside it, as `ledger verify` does; `expecting` heads recorded
    /// earlier must be lines of the intact log (`head-mismatch` otherwise).
    public func verify(expecting heads: [Head] = []) async throws(LedgerError) -> Verification {
        try await perform { call in
            guard let log = call.log else { return Verification(events: 0, head: Head(seq: 0, hash: LedgerDomain.Head.empty.hash), problems: []) }
            let report = try LogVerifier.verify(log, expecting: heads.map { LedgerDomain.Head(seq: $0.seq, hash: $0.hash) }, checkingCaches: true)
            return Verification(events: report.events, head: Head(seq: report.head.seq, hash: report.head.hash),
                                problems: report.problems.map { Verification.Problem(kind: $0.kind.rawValue, line: $0.line, message: $0.message) })
        }
    }

    /// The anomalies `ledger audit` reports (its exit 1): interrupted or half-compensated
    /// registrations, image files no event owns or events whose file is gone, and the rules the log
    /// itself breaks. Empty for a healthy ledger.
    public func anomalies() async throws(LedgerError) -> [Anomaly] {
        let directory = configuration.directory
        return try await perform { call in
            let blobs = FileBlobStore(directory: directory)
            let snapshot = try Auditor.snapshot(blobs: blobs, locks: call.registrationLocks)
            guard let log = call.log else { return [] }
            let now = SystemClock().now()
            let loaded = try ViewLoader.load(log, asOf: nil, now: now, views: [.registrations, .images, .signIns, .accountChanges, .sessions])
            Self.finishErasures(log, after: loaded)
            return Auditor.anomalies(loaded.views, at: now, blobs: blobs, locks: call.registrationLocks, snapshot: snapshot)
                .map { Anomaly(kind: $0.kind, key: $0.key, value: $0.value, message: $0.message) }
        }
    }
}
