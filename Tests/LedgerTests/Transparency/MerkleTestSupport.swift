import LedgerDomain
import LedgerKit

// MARK: - StoredNodes

/// An in-memory `MerkleNodeSource`: every complete subtree in `MerkleNodeIndex` order, as the
/// stores keep them, built by `MerkleFrontier`.
struct StoredNodes: MerkleNodeSource {
    /// The hashes, post-order.
    var hashes: [Digest32] = []
    /// The frontier after the last leaf.
    var frontier = MerkleFrontier()

    /// The nodes of a tree whose leaf hashes are `leaves`.
    init(leaves: [Digest32]) {
        for leaf in leaves { append(leaf) }
    }

    /// Adds one leaf and the subtrees it completes.
    mutating func append(_ leaf: Digest32) {
        var added: [Digest32] = []
        frontier.append(leaf, hasher: .sha256) { added.append($0) }
        hashes += added
    }

    func node(level: Int, index: UInt64) throws -> Digest32 {
        hashes[Int(MerkleNodeIndex.position(level: level, index: index))]
    }
}

// MARK: - Reference

/// RFC 9162's definitions written down literally over all the leaf hashes (no stored nodes): what the
/// stored-node algorithms must agree with.
enum ReferenceMerkle {
    static func mth(_ leaves: ArraySlice<Digest32>) -> Digest32 {
        let hasher = MerkleHasher.sha256
        if leaves.isEmpty { return hasher.emptyRoot }
        if leaves.count == 1 { return leaves.first! }
        var k = 1
        while k * 2 < leaves.count { k *= 2 }
        let lo = leaves.startIndex
        return hasher.nodeHash(mth(leaves[lo..<lo + k]), mth(leaves[(lo + k)...]))
    }
}

extension Digest32 {
    /// The digest spelled in hex, for the vectors (trapping on a bad vector is a test failure).
    init(testHex hex: String) { self = Digest32(hex: hex)! }
}

/// Flips bit `bit` (0..<256) of `digest`.
func flipped(_ digest: Digest32, bit: Int) -> Digest32 {
    var bytes = digest.bytes
    bytes[bit / 8] ^= 1 << UInt8(bit % 8)
    return Digest32(bytes: bytes)!
}
