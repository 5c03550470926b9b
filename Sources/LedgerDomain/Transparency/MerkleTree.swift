// MARK: - MerkleTree

/// RFC 9162 §2.1 over a `MerkleNodeSource`: MTH (§2.1.1), PATH (§2.1.3.1) and PROOF/SUBPROOF
/// (§2.1.4.1) for any tree size the source covers. Every range the algorithms hash is either a
/// complete subtree (one lookup) or the right edge of one, folded from O(log n) complete subtrees.
public struct MerkleTree<Source: MerkleNodeSource> {
    /// The stored complete subtrees.
    public let source: Source
    /// The hash functions.
    public let hasher: MerkleHasher

    /// A tree reading `source`, hashing with `hasher`.
    public init(source: Source, hasher: MerkleHasher) {
        self.source = source
        self.hasher = hasher
    }

    /// MTH(D[0:size]): the root of the first `size` leaves (the empty root for 0).
    public func root(size: UInt64) throws -> Digest32 {
        size == 0 ? hasher.emptyRoot : try hash(from: 0, to: size)
    }

    /// PATH(index, D[0:size]): the inclusion proof of leaf `index` (< `size`), leaf-side first.
    public func inclusionProof(index: UInt64, size: UInt64) throws -> [Digest32] {
        precondition(index < size, "leaf index past the tree")
        var proof: [Digest32] = []
        try path(index, from: 0, to: size, into: &proof)
        return proof
    }

    /// PROOF(oldSize, D[0:newSize]): the consistency proof from `oldSize` to `newSize`; empty when
    /// `oldSize` is 0 or `newSize`.
    public func consistencyProof(oldSize: UInt64, newSize: UInt64) throws -> [Digest32] {
        precondition(oldSize <= newSize, "old size past the new one")
        var proof: [Digest32] = []
        if oldSize > 0 && oldSize < newSize { try subproof(oldSize, from: 0, to: newSize, whole: true, into: &proof) }
        return proof
    }

    /// MTH(D[lo:hi]) for `lo` a multiple of a power of two ≥ `hi` − `lo` (the only ranges RFC 9162 splits into).
    public func hash(from lo: UInt64, to hi: UInt64) throws -> Digest32 {
        let width = hi - lo
        if width & (width - 1) == 0 {
            let level = width.trailingZeroBitCount
            return try source.node(level: level, index: lo >> UInt64(level))
        }
        let k = Self.split(width)
        return hasher.nodeHash(try hash(from: lo, to: lo + k), try hash(from: lo + k, to: hi))
    }

    /// The largest power of two smaller than `width` (> 1): where RFC 9162 splits a range.
    static func split(_ width: UInt64) -> UInt64 { 1 << UInt64(63 - (width - 1).leadingZeroBitCount) }

    private func path(_ index: UInt64, from lo: UInt64, to hi: UInt64, into proof: inout [Digest32]) throws {
        guard hi - lo > 1 else { return }
        let k = Self.split(hi - lo)
        if index < lo + k {
            try path(index, from: lo, to: lo + k, into: &proof)
            proof.append(try hash(from: lo + k, to: hi))
        } else {
            try path(index, from: lo + k, to: hi, into: &proof)
            proof.append(try hash(from: lo, to: lo + k))
        }
    }

    private func subproof(_ m: UInt64, from lo: UInt64, to hi: UInt64, whole: Bool, into proof: inout [Digest32]) throws {
        if m == hi - lo {
            if !whole { proof.append(try hash(from: lo, to: hi)) }
            return
        }
        let k = Self.split(hi - lo)
        if m <= k {
            try subproof(m, from: lo, to: lo + k, whole: whole, into: &proof)
            proof.append(try hash(from: lo + k, to: hi))
        } else {
            try subproof(m - k, from: lo + k, to: hi, whole: false, into: &proof)
            proof.append(try hash(from: lo, to: lo + k))
        }
    }
}
