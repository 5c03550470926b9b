// MARK: - MerkleNodeSource

/// Where a tree's stored hashes come from: the hash of every complete subtree (every node whose
/// leaves all exist), looked up by level and index. Roots and proofs of any size up to what the
/// source holds take O(log n) lookups, so a source backed by a file or a table reads O(log n) hashes.
public protocol MerkleNodeSource {
    /// The hash of the complete subtree of 2^`level` leaves starting at leaf `index` << `level`
    /// (level 0: the leaf hash itself). Asked only for subtrees the source holds.
    func node(level: Int, index: UInt64) throws -> Digest32
}

// MARK: - MerkleNodeIndex

/// The post-order numbering of complete subtrees (as Go's `tlog.StoredHashIndex`): leaf i's hash and
/// then the hashes of the subtrees it completes, lowest first. A tree of n leaves has exactly
/// `count(n)` = 2n − popcount(n) complete subtrees, numbered 0..<count(n), so adding a leaf only
/// appends and a stored array never moves.
public enum MerkleNodeIndex {
    /// The position of the subtree at `level` covering leaves [`index` << `level`, (`index` + 1) << `level`).
    public static func position(level: Int, index: UInt64) -> UInt64 {
        let last = (index + 1) << UInt64(level) - 1  // the leaf that completes the subtree
        return count(leaves: last) + UInt64(level)
    }

    /// How many complete subtrees a tree of `leaves` leaves has.
    public static func count(leaves: UInt64) -> UInt64 { 2 * leaves - UInt64(leaves.nonzeroBitCount) }

    /// How many subtrees leaf `index` completes (itself included): 1 + its number of trailing ones.
    public static func completed(byLeaf index: UInt64) -> Int { (~index).trailingZeroBitCount + 1 }
}
