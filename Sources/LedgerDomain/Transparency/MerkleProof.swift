// MARK: - MerkleProof

/// Checks RFC 9162 proofs against roots: what an auditor runs, trusting only the hashes it is given.
/// Any malformed input (an index past the tree, a proof too short or too long) is simply refused.
public enum MerkleProof {
    /// Whether `proof` shows the leaf `leafHash` at `index` in the tree of `treeSize` leaves whose root
    /// is `root` (RFC 9162 §2.1.3.2).
    public static func verifyInclusion(leafHash: Digest32, index: UInt64, treeSize: UInt64, proof: [Digest32], root: Digest32, hasher: MerkleHasher) -> Bool {
        guard index < treeSize else { return false }
        var fn = index, sn = treeSize - 1
        var r = leafHash
        for p in proof {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                r = hasher.nodeHash(p, r)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
                }
            } else {
                r = hasher.nodeHash(r, p)
            }
            fn >>= 1; sn >>= 1
        }
        return sn == 0 && r == root
    }

    /// Whether `proof` shows that the tree of `newSize` leaves with root `newRoot` extends the tree of
    /// `oldSize` leaves with root `oldRoot` (RFC 9162 §2.1.4.2). Equal sizes need an empty proof and
    /// equal roots; size 0 (every tree extends the empty one) an empty proof and the empty root.
    public static func verifyConsistency(oldSize: UInt64, newSize: UInt64, oldRoot: Digest32, newRoot: Digest32, proof: [Digest32], hasher: MerkleHasher) -> Bool {
        guard oldSize <= newSize else { return false }
        if oldSize == newSize { return proof.isEmpty && oldRoot == newRoot }
        if oldSize == 0 { return proof.isEmpty && oldRoot == hasher.emptyRoot }
        guard !proof.isEmpty else { return false }
        // A power-of-two old tree is a node of the new one: its root starts the path.
        let path = oldSize & (oldSize - 1) == 0 ? [oldRoot] + proof : proof
        var fn = oldSize - 1, sn = newSize - 1
        while fn & 1 == 1 { fn >>= 1; sn >>= 1 }
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = hasher.nodeHash(c, fr)
                sr = hasher.nodeHash(c, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
                }
            } else {
                sr = hasher.nodeHash(sr, c)
            }
            fn >>= 1; sn >>= 1
        }
        return sn == 0 && fr == oldRoot && sr == newRoot
    }
}
