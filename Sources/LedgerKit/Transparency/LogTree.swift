import Glibc
import LedgerDomain

// MARK: - LogTree

/// The RFC 9162 Merkle tree of a log's lines (leaf: SHA-256(0x00 ‖ the line's bytes without its
/// newline)), served from its durable state (`TreeFile`, `PostgresTree`) so roots and proofs read
/// O(log n) stored hashes. Opening it extends the state with the lines added since, each line's
/// chain link checked, and starts it over when it is damaged or stale; a state that recorded a line
/// the log now holds with another hash is a rewritten history (`StoreError(.historyRewritten)`).
/// A stored hash found damaged on the way starts the state over too, and every proof is checked
/// against the root before it is returned: the state is a cache, it never decides.
public final class LogTree {
    /// The state.
    let storage: any TreeStorage
    /// The tree's hashes.
    public let hasher = MerkleHasher.sha256
    /// Starts the state over and extends it from the log's first line.
    let rebuild: (LogTree) throws -> Void
    /// The log file, on a file store (nil on PostgreSQL).
    var logPath: String?
    /// The last line the tree covers (the head of the log's intact, closed prefix).
    public internal(set) var head = Head.empty
    /// What ends the log's intact prefix before its end, when something does (damage, a torn tail, a
    /// batch left open): the tree covers only the lines before it.
    public internal(set) var stoppedAt: LogProblem?

    /// A tree over `storage`, rebuilt by `rebuild`.
    init(storage: any TreeStorage, rebuild: @escaping (LogTree) throws -> Void) {
        self.storage = storage
        self.rebuild = rebuild
    }

    /// The state as a node source.
    private var nodes: StorageNodes { StorageNodes(storage: storage) }

    /// The number of leaves: the lines covered.
    public var size: UInt64 { storage.leaves }

    /// The root of the tree of the first `size` lines (≤ `self.size`).
    public func root(size: UInt64) throws -> Digest32 {
        precondition(size <= self.size, "a size past the tree")
        return try retrying { try MerkleTree(source: nodes, hasher: hasher).root(size: size) }
    }

    /// The leaf hash of line `index` + 1.
    public func leafHash(index: UInt64) throws -> Digest32 {
        precondition(index < size, "a leaf past the tree")
        return try retrying { try storage.node(level: 0, index: index) }
    }

    /// The inclusion proof of leaf `index` in the tree of `size` leaves, checked against its root.
    public func inclusionProof(index: UInt64, size: UInt64) throws -> (leaf: Digest32, root: Digest32, proof: [Digest32]) {
        precondition(index < size && size <= self.size, "a leaf or size past the tree")
        return try retrying {
            let tree = MerkleTree(source: nodes, hasher: hasher)
            let leaf = try storage.node(level: 0, index: index), root = try tree.root(size: size)
            let proof = try tree.inclusionProof(index: index, size: size)
            guard MerkleProof.verifyInclusion(leafHash: leaf, index: index, treeSize: size, proof: proof, root: root, hasher: hasher) else {
                throw TreeDamaged(what: "the inclusion proof of leaf \(index) in \(size) does not verify")
            }
            return (leaf, root, proof)
        }
    }

    /// The consistency proof from `oldSize` to `newSize` (≤ `size`) with both roots, checked.
    public func consistencyProof(oldSize: UInt64, newSize: UInt64) throws -> (oldRoot: Digest32, root: Digest32, proof: [Digest32]) {
        precondition(oldSize <= newSize && newSize <= size, "a size past the tree")
        return try retrying {
            let tree = MerkleTree(source: nodes, hasher: hasher)
            let oldRoot = try tree.root(size: oldSize), root = try tree.root(size: newSize)
            let proof = try tree.consistencyProof(oldSize: oldSize, newSize: newSize)
            guard MerkleProof.verifyConsistency(oldSize: oldSize, newSize: newSize, oldRoot: oldRoot, newRoot: root, proof: proof, hasher: hasher) else {
                throw TreeDamaged(what: "the consistency proof from \(oldSize) to \(newSize) does not verify")
            }
            return (oldRoot, root, proof)
        }
    }

    /// `body`, and once more after the state is rebuilt when it met damage.
    private func retrying<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is TreeDamaged {
            try rebuild(self)
            return try body()
        }
    }

    // MARK: - Extending

    /// Extends the state with the verified lines of `bytes` from `offset` on, which follow the line
    /// `mark` (nil: they are the log's first), up to the first line that is not a closed, verified
    /// line (damage, a torn tail, a batch left open). Written in pieces, made durable once.
    func extend(_ bytes: any LogBytes, from offset: Int, after mark: TreeMark?) throws {
        var checker = mark.map { ChainChecker(continuingAfter: $0.head) } ?? ChainChecker()
        var frontier = try MerkleFrontier(size: storage.leaves, source: nodes)
        var position = MerkleNodeIndex.count(leaves: storage.leaves)
        var pending: [Digest32] = []
        pending.reserveCapacity(1 << 16)
        var last: (seq: Int, hash: Digest32, start: Int, end: Int)?
        var failure: (any Error)?
        var stoppedAt: LogProblem?
        let hasher = self.hasher, storage = self.storage
        defer { self.stoppedAt = stoppedAt }
        try LogScanner.scanFactsLendingChecker(bytes, from: offset, checker: &checker, { item, _, chunk in
            let (event, hash, start, length): (UnsafePointer<ViewEvent>, Digest32, Int, Int)
            switch item {
            case .event(let at, let digest, let offset, let count): (event, hash, start, length) = (at, digest, offset, count)
            case .problem(let problem, _, _), .tornTail(let problem, _, _):
                stoppedAt = problem
                return false
            }
            let line = chunk.bytes(start..<(start + length - 1))
            frontier.append(hasher.leafHash(UnsafeRawBufferPointer(line)), hasher: hasher) { pending.append($0) }
            last = (event.pointee.seq, hash, start, start + length)
            if pending.count >= 1 << 16 {
                do { try storage.write(pending, from: position) } catch { failure = error; return false }
                position += UInt64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
            return true
        }, endOfChunk: { _, _ in true })
        if let failure { throw failure }
        guard let last, frontier.size > storage.leaves else {
            head = mark?.head ?? .empty
            return
        }
        if !pending.isEmpty { try storage.write(pending, from: position) }
        let newMark = TreeMark(head: Head(seq: last.seq, hash: last.hash.hex), lineStart: last.start, lineEnd: last.end)
        try storage.commit(leaves: frontier.size, mark: newMark)
        head = newMark.head
    }
}

// MARK: - StorageNodes

/// A `TreeStorage` as the `MerkleNodeSource` the tree algorithms read.
struct StorageNodes: MerkleNodeSource {
    /// The state.
    let storage: any TreeStorage

    func node(level: Int, index: UInt64) throws -> Digest32 { try storage.node(level: level, index: index) }
}
