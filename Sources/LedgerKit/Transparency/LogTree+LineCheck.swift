import LedgerDomain

// MARK: - LogTree: the state against the lines

extension LogTree {
    /// Adds to `frontier` the leaf hashes of the verified lines of `bytes` from `offset` on (which
    /// follow the lines `frontier` holds; `checker` continues their chain), up to the tree's size,
    /// comparing every subtree hash completed with the one the state stored at its position; calls
    /// `each` after every leaf. Returns the root of the tree's size, computed from the lines, and the
    /// mark of the last line read (where it lies in the file on a file store; nil when none was read).
    /// `SignedHeadError(.cacheMismatch)` at the first hash that differs (or is missing or damaged),
    /// or when the intact lines end before the state's size: the state vouches for nothing.
    func compare(_ bytes: any LogBytes, from offset: Int, checker start: ChainChecker, frontier: inout MerkleFrontier,
                 each: (MerkleFrontier) -> Void = { _ in }) throws -> (root: Digest32, last: TreeMark?) {
        let hasher = self.hasher, storage = self.storage, target = size
        var leaves = frontier
        var position = MerkleNodeIndex.count(leaves: leaves.size)
        var stored: [Digest32?] = [], next = 0
        var mismatch: (line: Int, what: String)?
        var failure: (any Error)?
        var ended: Int?
        var checker = start
        var last: (seq: Int, hash: Digest32, start: Int, end: Int)?
        if leaves.size < target {
            try LogScanner.scanFactsLendingChecker(bytes, from: offset, checker: &checker, { item, _, chunk in
                let (event, begin, length, hash): (UnsafePointer<ViewEvent>, Int, Int, Digest32)
                switch item {
                case .event(let at, let lineHash, let offset, let count): (event, begin, length, hash) = (at, offset, count, lineHash)
                case .problem(let problem, _, _), .tornTail(let problem, _, _):
                    ended = problem.line
                    return false
                }
                let seq = event.pointee.seq
                if mismatch == nil { last = (seq, hash, begin, begin + length) }
                leaves.append(hasher.leafHash(UnsafeRawBufferPointer(chunk.bytes(begin..<(begin + length - 1)))), hasher: hasher) { hash in
                    guard mismatch == nil, failure == nil else { return }
                    if next == stored.count {
                        do { stored = try storage.hashes(from: position, count: 1 << 15) } catch { failure = error; return }
                        next = 0
                    }
                    let recorded = next < stored.count ? stored[next] : nil
                    if recorded != hash {
                        mismatch = (seq, recorded == nil ? "its record \(position) is missing or damaged" : "its hash \(position) is \(recorded!.hex), the log's lines give \(hash.hex)")
                    }
                    next += 1
                    position += 1
                }
                each(leaves)
                return mismatch == nil && failure == nil && leaves.size < target
            }, endOfChunk: { _, _ in true })
        }
        if let failure { throw failure }
        frontier = leaves
        let name = logPath.map { TreeFile.path(forLog: $0) } ?? PostgresTree.name
        if let mismatch {
            throw SignedHeadError(.cacheMismatch, "\(name) disagrees with the log at line \(mismatch.line): \(mismatch.what); nothing was signed (remove it: head rebuilds it from the log; `ledger verify` reports it)")
        }
        guard leaves.size == target else {
            let stop = ended.map { " (line \($0) is not an intact line)" } ?? ""
            throw SignedHeadError(.cacheMismatch, "\(name) covers \(target) lines, but the log's intact lines end after \(leaves.size)\(stop); nothing was signed (run `ledger verify`)")
        }
        // Offsets in a PostgreSQL line stream locate nothing: only the seq and hash are kept there.
        let located = logPath != nil
        return (leaves.root(hasher: hasher), last.map { TreeMark(head: Head(seq: $0.seq, hash: $0.hash.hex), lineStart: located ? $0.start : 0, lineEnd: located ? $0.end : 0) })
    }
}
