// MARK: - HistoryRewrite

/// A cache beside the log (the writers' index, its checkpoint, the views' checkpoint) recorded that
/// line `seq` had the hash `recorded`, and the log still holds a line `seq` whose hash is `found`.
/// A line is never changed once written, so this is evidence that the history was rewritten since
/// the cache saw it, not that the cache is stale (a stale cache records a line the log no longer
/// holds, after a restore from an older backup). Writers refuse; `verify` reports it.
public struct HistoryRewrite: Equatable, Sendable {
    /// The cache that recorded the line (a file path, or a place in a store).
    public var cache: String
    /// The line's seq.
    public var seq: Int
    /// The hash the cache recorded for it.
    public var recorded: String
    /// The hash of the log's line with that seq.
    public var found: String
    /// What the cache recorded and what the log holds instead, in words, when it is not a hash for a
    /// seq (a line recorded by where it starts, or by the stream it belongs to); nil: the hashes say it.
    public var detail: String?

    /// A rewrite from its parts.
    public init(cache: String, seq: Int, recorded: String, found: String, detail: String? = nil) {
        self.cache = cache; self.seq = seq; self.recorded = recorded; self.found = found; self.detail = detail
    }

    /// The rule, decided once: the rewrite that `cache`'s record of `head` proves, given the hash of
    /// the log's intact line with that seq (`found`, nil when the intact log does not reach it); nil
    /// when the log does not reach the line or holds it with the recorded hash.
    public static func evidence(cache: String, recorded head: Head, found: String?) -> HistoryRewrite? {
        guard head.seq > 0, let found, found != head.hash else { return nil }
        return HistoryRewrite(cache: cache, seq: head.seq, recorded: head.hash, found: found)
    }

    /// `text` when it is a hash as ledger writes one (64 lowercase hex digits), else nil: a cache
    /// that recorded anything else recorded no line.
    public static func canonicalHash(_ text: String) -> String? {
        text.utf8.count == 64 && text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) ? text : nil
    }

    /// What the operator may do about it.
    public static let remedy = "if this log was restored from a backup on purpose, run `ledger recover --accept-history` to discard the caches"

    /// One line naming the cache, the seq and both hashes, and the way back.
    public var message: String {
        if let detail {
            return "\(cache) \(detail): the history was rewritten after the cache recorded it; \(Self.remedy)"
        }
        return "\(cache) recorded line \(seq) with hash \(recorded), but the log's line \(seq) has hash \(found): "
            + "the history was rewritten after the cache recorded it; \(Self.remedy)"
    }
}
