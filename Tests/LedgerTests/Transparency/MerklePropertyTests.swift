import LedgerDomain
import LedgerKit
import Testing

// MARK: - MerklePropertyTests

/// Random trees up to a few thousand leaves: the stored-node algorithms agree with RFC 9162's
/// definitions, every proof they make verifies, and a proof with one bit changed does not.
@Suite struct MerklePropertyTests {
    let hasher = MerkleHasher.sha256

    /// Leaf hashes of `count` distinct leaves.
    func leaves(_ count: Int, seed: UInt64) -> [Digest32] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let bytes = (0..<8).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return bytes.withUnsafeBytes { hasher.leafHash($0) }
        }
    }

    @Test func rootsAgreeWithTheDefinitionAtEverySmallSize() throws {
        let all = leaves(70, seed: 1)
        let tree = MerkleTree(source: StoredNodes(leaves: all), hasher: hasher)
        for size in 0...all.count {
            #expect(try tree.root(size: UInt64(size)) == ReferenceMerkle.mth(all[..<size]), "size \(size)")
        }
        #expect(StoredNodes(leaves: all).hashes.count == Int(MerkleNodeIndex.count(leaves: 70)))
    }

    @Test func randomProofsVerifyAndMutatedOnesDoNot() throws {
        var random = SplitMix64(seed: 9162)
        let all = leaves(3_000, seed: 2)
        let nodes = StoredNodes(leaves: all)
        let tree = MerkleTree(source: nodes, hasher: hasher)
        for _ in 0..<300 {
            let size = UInt64(random.int(in: 1...all.count))
            let root = try tree.root(size: size)
            // Inclusion.
            let index = random.next() % size
            let path = try tree.inclusionProof(index: index, size: size)
            #expect(path.count <= 64 - (size - 1).leadingZeroBitCount)
            #expect(MerkleProof.verifyInclusion(leafHash: all[Int(index)], index: index, treeSize: size, proof: path, root: root, hasher: hasher))
            if !path.isEmpty {
                var bad = path
                let i = random.below(bad.count)
                bad[i] = flipped(bad[i], bit: random.below(256))
                #expect(!MerkleProof.verifyInclusion(leafHash: all[Int(index)], index: index, treeSize: size, proof: bad, root: root, hasher: hasher))
            }
            #expect(!MerkleProof.verifyInclusion(leafHash: all[Int(index)], index: index, treeSize: size, proof: path, root: flipped(root, bit: random.below(256)), hasher: hasher))
            // Consistency.
            let old = random.next() % (size + 1)
            let oldRoot = try tree.root(size: old)
            let proof = try tree.consistencyProof(oldSize: old, newSize: size)
            #expect(MerkleProof.verifyConsistency(oldSize: old, newSize: size, oldRoot: oldRoot, newRoot: root, proof: proof, hasher: hasher), "\(old) -> \(size)")
            if !proof.isEmpty {
                var bad = proof
                let i = random.below(bad.count)
                bad[i] = flipped(bad[i], bit: random.below(256))
                #expect(!MerkleProof.verifyConsistency(oldSize: old, newSize: size, oldRoot: oldRoot, newRoot: root, proof: bad, hasher: hasher))
                #expect(!MerkleProof.verifyConsistency(oldSize: old, newSize: size, oldRoot: oldRoot, newRoot: root, proof: Array(proof.dropLast()), hasher: hasher))
            }
            if old > 0 && old < size {
                #expect(!MerkleProof.verifyConsistency(oldSize: old, newSize: size, oldRoot: flipped(oldRoot, bit: 5), newRoot: root, proof: proof, hasher: hasher))
            }
        }
    }

    @Test func proofsReadLogarithmicallyManyNodes() throws {
        /// Counts lookups.
        final class Counting: MerkleNodeSource {
            let nodes: StoredNodes
            var reads = 0
            init(_ nodes: StoredNodes) { self.nodes = nodes }
            func node(level: Int, index: UInt64) throws -> Digest32 { reads += 1; return try nodes.node(level: level, index: index) }
        }
        let source = Counting(StoredNodes(leaves: leaves(4_095, seed: 3)))
        let tree = MerkleTree(source: source, hasher: hasher)
        _ = try tree.root(size: 4_095)
        #expect(source.reads <= 12)
        source.reads = 0
        _ = try tree.inclusionProof(index: 0, size: 4_095)
        _ = try tree.consistencyProof(oldSize: 1_365, newSize: 4_095)
        #expect(source.reads <= 2 * 12 * 12)  // O(log² n) at worst, far from the 8,000 nodes
    }
}
