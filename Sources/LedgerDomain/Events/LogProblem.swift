// MARK: - LogProblem

/// The kinds of damage `verify` reports; raw values are the public `kind` strings.
public enum ProblemKind: String, CaseIterable, Sendable {
    /// The last line is incomplete (no final newline, or not JSON): an unacknowledged write.
    case tornTail = "torn-tail"
    /// Not one compact JSON object, or an envelope member is missing or malformed.
    case invalidJSON = "invalid-json"
    /// `seq` is not the previous line's plus one.
    case seqGap = "seq-gap"
    /// `hash` is not the SHA-256 of the line's bytes.
    case badHash = "bad-hash"
    /// `prev` is not the previous line's `hash`.
    case brokenChain = "broken-chain"
    /// `type` is not in the catalogue.
    case unknownType = "unknown-type"
    /// `data` does not match its type's schema (or `v` is unknown, or `id` repeats).
    case invalidData = "invalid-data"
    /// A line's `batch` does not continue the lines before it: a batch interrupted by a line outside
    /// it or by another batch, or a line claiming a place in a batch no line before it started.
    case brokenBatch = "broken-batch"
    /// A cache beside the log (the writers' index, the checkpoint) says what the log does not (`ledger verify`).
    case cacheMismatch = "cache-mismatch"
    /// The log does not hold a head recorded earlier (`ledger verify --expect SEQ:HASH`).
    case headMismatch = "head-mismatch"
    /// A cache beside the log recorded another hash for a line the log still holds (`HistoryRewrite`).
    case historyRewritten = "history-rewritten"
    /// A personal member's subject has no key in the key store and no erasure event names it: its
    /// data is lost (`ledger verify` of a data version 2 log).
    case missingKey = "missing-key"
    /// The key store still holds a live key of a subject an erasure event names: its personal data
    /// can be read again (a key store restored from a backup taken before the erasure, or an erasure
    /// cut short; `ledger verify` of a data version 2 log).
    case erasedKeyPresent = "erased-key-present"
    /// A migrated log does not hold the old log's events as they were (`ledger verify --migrated-from LOG`).
    case migrationMismatch = "migration-mismatch"
    /// A signed head (`ledger verify --signed-head`) names more lines than the log's intact prefix
    /// holds, or another root for its first lines: a history rewritten after the head was signed.
    case signedHeadMismatch = "signed-head-mismatch"
    /// A signed head is not signed by the log's key, or not cosigned by every named witness (or is
    /// not a signed head at all).
    case badSignature = "bad-signature"
}

/// One problem found on one line of a log.
public struct LogProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// The kind of damage.
    public var kind: ProblemKind
    /// A human explanation.
    public var message: String

    /// A problem from its members.
    public init(line: Int, kind: ProblemKind, message: String) { self.line = line; self.kind = kind; self.message = message }

    /// `line N: kind: message`.
    public var description: String { "line \(line): \(kind.rawValue): \(message)" }
}
