// MARK: - MerkleFrontier

/// Adds leaves to a tree one at a time and says which complete subtrees each one makes, in
/// `MerkleNodeIndex` order: what a store appends to its tree state. Keeps only the right-hand
/// frontier (one hash per set bit of the size), so extending never reads back what was stored.
public struct MerkleFrontier: Sendable {
    /// How many leaves were added.
    public private(set) var size: UInt64
    /// The roots of the complete subtrees along the right edge, largest (leftmost) first.
    public private(set) var hashes: [Digest32]

    /// The frontier of a tree of `size` leaves whose right-edge subtrees are `hashes`, largest first
    /// (one per set bit of `size`).
    public init(size: UInt64, hashes: [Digest32]) {
        precondition(hashes.count == size.nonzeroBitCount, "a frontier has one hash per set bit of the size")
        self.size = size
        self.hashes = hashes
    }

    /// The empty tree's frontier.
    public init() { self.init(size: 0, hashes: []) }

    /// The frontier of the first `size` leaves of `source`.
    public init(size: UInt64, source: some MerkleNodeSource) throws {
        var hashes: [Digest32] = []
        var start: UInt64 = 0
        for level in stride(from: 63, through: 0, by: -1) where size >> UInt64(level) & 1 == 1 {
            hashes.append(try source.node(level: level, index: start >> UInt64(level)))
            start += 1 << UInt64(level)
        }
        self.init(size: size, hashes: hashes)
    }

    /// Adds the leaf `leaf`; calls `completed` with the leaf hash and then each subtree it completes,
    /// lowest level first (the post-order `MerkleNodeIndex` numbers them in).
    public mutating func append(_ leaf: Digest32, hasher: MerkleHasher, completed: (Digest32) throws -> Void) rethrows {
        var hash = leaf
        try completed(hash)
        var index = size
        while index & 1 == 1 {
            hash = hasher.nodeHash(hashes.removeLast(), hash)
            try completed(hash)
            index >>= 1
        }
        hashes.append(hash)
        size += 1
    }

    /// MTH of the leaves added: the right-edge subtrees folded from the smallest.
    public func root(hasher: MerkleHasher) -> Digest32 {
        guard var root = hashes.last else { return hasher.emptyRoot }
        for hash in hashes.dropLast().reversed() { root = hasher.nodeHash(hash, root) }
        return root
    }
}
