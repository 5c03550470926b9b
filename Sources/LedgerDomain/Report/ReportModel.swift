// MARK: - ReportModel

/// Everything the audit report shows, computed from the views (pure: no I/O, no clock).
///
/// Funnel definitions (over the registrations that started at or after `since`, all when nil):
/// - **attempts**: registrations started (every registration stream, rejected ones included);
/// - **account created**: attempts with an `AccountCreated` (a uid);
/// - **image stored or skipped**: of those, the ones with an `ImageStored` (stored), or that planned
///   no image (`withImage` not true) and stored none (skipped);
/// - **profile written**: of those, the ones with a `ProfileWritten`;
/// - **signed in**: of those, the ones whose user has at least one `SessionStarted` in the views.
/// Each step counts a subset of the one before it; `lost` is the difference and `lostPerMille` its
/// share of the step before, in per mille rounded to the nearest (half up: 2 of 12 is 167).
public struct ReportModel: Equatable, Sendable {
    /// One step of the funnel.
    public struct FunnelStep: Equatable, Sendable {
        /// `attempts`, `account`, `image`, `profile`, `signed-in`.
        public var key: String
        /// The label shown.
        public var label: String
        /// Registrations that reached this step.
        public var count: Int
        /// Registrations lost since the step before (0 for the first).
        public var lost: Int
        /// `lost` per mille of the step before, rounded to the nearest (0 when it had none).
        public var lostPerMille: Int
    }

    /// One bar of a bar chart.
    public struct Bar: Equatable, Sendable {
        /// The label.
        public var label: String
        /// The value.
        public var count: Int

        /// A bar from its members.
        public init(label: String, count: Int) { self.label = label; self.count = count }
    }

    /// Registrations started in one time bucket.
    public struct Bucket: Equatable, Sendable {
        /// The bucket's first instant.
        public var start: Timestamp
        /// Completed registrations.
        public var completed: Int
        /// Registrations not completed (failed, compensated, pending or in progress).
        public var failed: Int

        /// A bucket from its members.
        public init(start: Timestamp, completed: Int, failed: Int) { self.start = start; self.completed = completed; self.failed = failed }
    }

    /// One row of the failed-registrations table (as `ledger audit`).
    public struct FailedRow: Equatable, Sendable {
        /// The registration id.
        public var registration: String
        /// Its first event's time.
        public var startedAt: Timestamp?
        /// The email (unmasked; the renderer masks it).
        public var email: String?
        /// The outcome.
        public var outcome: String
        /// The failed step, if any.
        public var step: String?
        /// The reason code, if any.
        public var reason: String?
        /// The failure message, if any.
        public var message: String?
        /// Compensations performed.
        public var compensations: [String]
        /// True when an anomaly names this registration or its account.
        public var anomalous: Bool
    }

    /// An anomaly (the shell's `Auditor` finds them; the domain cannot, it has no files).
    public struct Anomaly: Equatable, Sendable {
        /// `interrupted`, `account-without-profile`, …
        public var kind: String
        /// `registration`, `uid` or `imageName`.
        public var key: String
        /// The subject's id.
        public var value: String
        /// The explanation.
        public var message: String

        /// An anomaly from its members.
        public init(kind: String, key: String, value: String, message: String) {
            self.kind = kind; self.key = key; self.value = value; self.message = message
        }
    }

    /// When the report was generated.
    public var generatedAt: Timestamp
    /// The instant the views stand at.
    public var asOf: Timestamp
    /// Only registrations started at or after this instant count (nil: all).
    public var since: Timestamp?
    /// The head of the events the views reflect.
    public var head: Head
    /// Events the views reflect.
    public var events: Int
    /// True when `verify` found the whole log intact.
    public var verifyOK: Bool
    /// The first problem `verify` found, if any.
    public var verifyProblem: String?
    /// The funnel, first step first.
    public var funnel: [FunnelStep]
    /// Image step: registrations with a stored image.
    public var imagesStored: Int
    /// Image step: registrations that planned no image.
    public var imagesSkipped: Int
    /// Failures by `step · reason`, most frequent first (ties in step order).
    public var failures: [Bar]
    /// Compensations by event type.
    public var compensations: [Bar]
    /// Milliseconds per timeline bucket (one hour, or a multiple when the span is long).
    public var bucketMillis: Int64
    /// Registrations per bucket, oldest first, empty buckets included.
    public var timeline: [Bucket]
    /// Registrations not completed, in start order.
    public var failedRows: [FailedRow]
    /// Every anomaly (not filtered by `since`).
    public var anomalies: [Anomaly]
    /// Refused sign-ins per email, in first-failure order (not filtered by `since`).
    public var signIns: [SignInRow]
    /// Disables and enables, in log order (not filtered by `since`).
    public var accountChanges: [AccountChangeView.ChangeRow]
    /// Revoked sessions, in log order (not filtered by `since`).
    public var revokedSessions: [AccountChangeView.RevokedRow]

    /// At most this many timeline buckets; longer spans get wider buckets.
    public static let maxBuckets = 168
    /// One hour in milliseconds.
    public static let hour: Int64 = 3_600_000

    /// The model of `views`.
    public init(views: LedgerViews, asOf: Timestamp, since: Timestamp? = nil, anomalies: [Anomaly] = [],
                verifyOK: Bool, verifyProblem: String? = nil, generatedAt: Timestamp) {
        self.generatedAt = generatedAt
        self.asOf = asOf
        self.since = since
        self.head = views.head
        self.events = views.events
        self.verifyOK = verifyOK
        self.verifyProblem = verifyProblem
        self.anomalies = anomalies
        signIns = Self.signInRows(views.signIns, at: asOf)
        accountChanges = views.accountChanges.changes
        revokedSessions = views.accountChanges.revoked

        let rows = views.registrations.rows.filter { row in
            guard let since else { return true }
            return (row.startedAt ?? Timestamp(millis: 0)) >= since
        }

        let accounts = rows.filter { $0.uid != nil }
        let stored = accounts.filter { $0.imageName != nil }
        let skipped = accounts.filter { $0.imageName == nil && !$0.withImage }
        let imaged = accounts.filter { $0.imageName != nil || !$0.withImage }
        let profiles = imaged.filter { $0.profileWritten }
        let sessions = profiles.filter { $0.facts.uidBits.map(views.sessions.hasSession) ?? false }
        imagesStored = stored.count
        imagesSkipped = skipped.count
        let steps: [(String, String, Int)] = [
            ("attempts", "Attempts", rows.count),
            ("account", "Account created", accounts.count),
            ("image", "Image stored or skipped", imaged.count),
            ("profile", "Profile written", profiles.count),
            ("signed-in", "Signed in", sessions.count),
        ]
        var funnel: [FunnelStep] = []
        for (index, step) in steps.enumerated() {
            let before = index == 0 ? step.2 : steps[index - 1].2
            let lost = before - step.2
            funnel.append(FunnelStep(key: step.0, label: step.1, count: step.2, lost: lost,
                                     lostPerMille: before > 0 ? (lost * 2000 + before) / (2 * before) : 0))
        }
        self.funnel = funnel

        // Failures by step and reason.
        var failureCounts: [String: Int] = [:]
        var failureOrder: [(label: String, step: Int)] = []
        let stepOrder = RegistrationStep.allCases.map(\.rawValue)
        for row in rows {
            guard let failure = row.failure else { continue }
            let label = "\(failure.step.rawValue) · \(failure.reason)"
            if failureCounts[label] == nil {
                failureOrder.append((label, stepOrder.firstIndex(of: failure.step.rawValue) ?? stepOrder.count))
            }
            failureCounts[label, default: 0] += 1
        }
        failures = failureOrder.sorted { a, b in
            let ca = failureCounts[a.label] ?? 0, cb = failureCounts[b.label] ?? 0
            if ca != cb { return ca > cb }
            if a.step != b.step { return a.step < b.step }
            return a.label < b.label
        }.map { Bar(label: $0.label, count: failureCounts[$0.label] ?? 0) }

        // Compensations by type, in catalogue order.
        var compensationCounts: [EventType: Int] = [:]
        for row in rows { for type in row.compensations { compensationCounts[type, default: 0] += 1 } }
        compensations = [EventType.imageDeleted, .accountDeleted].map { Bar(label: $0.rawValue, count: compensationCounts[$0] ?? 0) }

        // The timeline.
        let starts = rows.map { $0.startedAt ?? Timestamp(millis: 0) }
        var width = Self.hour
        var buckets: [Bucket] = []
        if let first = starts.min(), let last = starts.max() {
            let firstHour = Self.floor(first.millis, Self.hour)
            let span = Self.floor(last.millis, Self.hour) - firstHour + Self.hour
            let hours = span / Self.hour
            if hours > Int64(Self.maxBuckets) { width = Self.hour * ((hours + Int64(Self.maxBuckets) - 1) / Int64(Self.maxBuckets)) }
            let count = Int((Self.floor(last.millis - firstHour, width)) / width) + 1
            buckets = (0..<count).map { Bucket(start: Timestamp(millis: firstHour + Int64($0) * width), completed: 0, failed: 0) }
            for (row, start) in zip(rows, starts) {
                let index = Int((start.millis - firstHour) / width)
                if row.outcome == .completed { buckets[index].completed += 1 } else { buckets[index].failed += 1 }
            }
        }
        bucketMillis = width
        timeline = buckets

        // The failed registrations.
        let anomalousRegistrations = Set(anomalies.filter { $0.key == "registration" }.map(\.value))
        let anomalousUIDs = Set(anomalies.filter { $0.key == "uid" }.map(\.value))
        let anomalousImages = Set(anomalies.filter { $0.key == "imageName" }.map(\.value))
        failedRows = rows.filter { $0.outcome != .completed }.map { row in
            let anomalous = anomalousRegistrations.contains(row.registration) || row.uid.map(anomalousUIDs.contains) == true
                || row.imageName.map(anomalousImages.contains) == true
            return FailedRow(registration: row.registration, startedAt: row.startedAt, email: row.email, outcome: row.outcome.rawValue,
                             step: row.failure?.step.rawValue, reason: row.failure?.reason, message: row.failure?.message,
                             compensations: row.compensations.map(\.rawValue), anomalous: anomalous)
        }
    }

    /// `value` rounded down to a multiple of `unit` (also for negative values).
    static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        let remainder = value % unit
        return remainder < 0 ? value - remainder - unit : value - remainder
    }

    /// The funnel step with `key`.
    public func step(_ key: String) -> FunnelStep? { funnel.first { $0.key == key } }
}
