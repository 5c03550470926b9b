import LedgerDomain

// MARK: - LogIndex

/// What a file store knows about the verified prefix of its log.
struct LogIndex {
    /// Bytes of the log that verified (always a line boundary).
    var verifiedSize = 0
    /// Chain state after the verified prefix.
    var checker = ChainChecker()
    /// Events per stream.
    var streamVersions: [String: Int] = [:]
    /// The latest `at`, so appended times never go backwards.
    var lastAt = Timestamp(millis: 0)

    /// Records one verified event.
    mutating func record(_ event: RecordedEvent, offset: Int) {
        streamVersions[event.stream, default: 0] += 1
        lastAt = max(lastAt, event.at)
    }
}
