import LedgerDomain

// MARK: - TreeMark

/// The last log line a tree state covers: its seq and hash, and on a file store where it lies.
struct TreeMark: Equatable {
    /// The line's seq (the tree's size) and chain hash.
    var head: Head
    /// Where the line starts and where its newline ends it (0 on a PostgreSQL store).
    var lineStart = 0, lineEnd = 0
}

// MARK: - TreeDamaged

/// A stored hash or header whose checksum does not hold: the state is rebuilt, never used.
struct TreeDamaged: Error {
    /// What is damaged, for messages.
    var what: String
}

// MARK: - TreeStorage

/// Where a log's tree state lives (`TreeFile` beside a log file, `PostgresTree` in `ledger_tree`):
/// every complete subtree's hash in `MerkleNodeIndex` order, appended as the log grows, and the
/// line the state covers. A cache: anything it says is checked against the log before use.
protocol TreeStorage: AnyObject, MerkleNodeSource {
    /// How many leaves (lines) the stored state covers.
    var leaves: UInt64 { get }
    /// The last line covered, when the storage records one (nil: empty, or only the hashes say it).
    var mark: TreeMark? { get }
    /// Stores `nodes` at positions from `position` on (not yet durable, not yet covered).
    func write(_ nodes: [Digest32], from position: UInt64) throws
    /// Makes what was written durable, then records that it covers `leaves` lines up to `mark`.
    func commit(leaves: UInt64, mark: TreeMark?) throws
    /// Up to `count` stored hashes from `position` on, in order (nil for one found damaged), for a
    /// comparison with the log; fewer at the end of what is stored.
    func hashes(from position: UInt64, count: Int) throws -> [Digest32?]
    /// Forgets everything (the state of the empty tree), to rebuild from the first line.
    func reset() throws
}
