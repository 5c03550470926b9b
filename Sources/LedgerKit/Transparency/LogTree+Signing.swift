import Glibc
import LedgerDomain

// MARK: - LogTree: the root a signer may sign

extension LogTree {
    /// The root `ledger head --key` signs for the tree's size, and the mark of the line it ends at.
    public struct SigningRoot: Sendable {
        /// The root of the log's first `size` lines.
        public let root: Digest32
        /// Lines the check hashed (those after the last signed head, or all of them).
        public let linesRead: UInt64
        /// The last line signed (seq and hash; on a file store where the check found it): what the
        /// signer's memory records, never taken from the data folder.
        let mark: TreeMark
    }

    /// The root of the tree's size, never taken from the state unchecked. With `last`, the head the
    /// key signed last under this origin (from `SignerMemory`, beside the key): the log must still
    /// hold its last line, with its hash, where the signer found it (on a file store: at the
    /// offsets it recorded), else `signed-head-mismatch` (a log cut below that size included); the
    /// state's root at its size must be its root, and the lines after it (their chain continuing
    /// from that line) must give every hash the state stored after it: O(lines since). A state that
    /// disagrees there is checked whole against the lines, which must have that root at its size.
    /// Without `last`, every stored hash is compared with the lines, once. A state that disagrees
    /// with the lines is `cache-mismatch`: nothing to sign.
    public func signingRoot(last: SignerMemory.Entry?, source: LogSource) throws -> SigningRoot {
        guard let last, last.body.size > 0 else { return try checkWhole(source, signed: nil) }
        let body = last.body
        guard body.size <= size else {
            throw mismatch(last, "the log's intact lines end after \(size), before the \(body.size) lines it covers: lines were removed or damaged since")
        }
        guard let resume = try resumePoint(last.mark, source) else {
            // A mark with no place (recorded on PostgreSQL, read from a file): every line is checked.
            if case .file = source, last.mark.lineEnd == 0 { return try checkWhole(source, signed: last) }
            throw mismatch(last, "the log no longer holds its last line (\(body.size)) \(placeName(last.mark, source)) with the hash signed: its history was rewritten or moved since")
        }
        do {
            if var frontier = try signedFrontier(body, leaf: resume.leaf) {
                let (root, end) = try compare(resume.bytes, from: resume.offset, checker: ChainChecker(continuingAfter: resume.mark.head), frontier: &frontier)
                return SigningRoot(root: root, linesRead: size - body.size, mark: end ?? resume.mark)
            }
        } catch is TreeDamaged {}  // a stored hash missing or damaged: the whole state is checked instead
        return try checkWhole(source, signed: last)
    }

    /// Every stored hash compared with the lines from the first; with `signed`, the lines must have
    /// its root at its size (`signed-head-mismatch` otherwise).
    private func checkWhole(_ source: LogSource, signed: SignerMemory.Entry?) throws -> SigningRoot {
        var frontier = MerkleFrontier()
        var rootAtSigned: Digest32?
        let signedSize = signed?.body.size ?? 0
        let (root, end) = try compare(try lines(source), from: 0, checker: ChainChecker(), frontier: &frontier) { frontier in
            if frontier.size == signedSize { rootAtSigned = frontier.root(hasher: self.hasher) }
        }
        if let signed, rootAtSigned != signed.body.root {
            throw mismatch(signed, "the log's first \(signed.body.size) lines no longer have its root: its history was rewritten since")
        }
        return SigningRoot(root: root, linesRead: size, mark: end ?? TreeMark(head: head))
    }

    /// `signed-head-mismatch` about the head signed last, `last`.
    private func mismatch(_ last: SignerMemory.Entry, _ why: String) -> SignedHeadError {
        SignedHeadError(.signedHeadMismatch, "the key signed \(last.body.origin) at \(last.body.size) lines last (its memory beside the key): \(why); nothing was signed (check it with `ledger verify --signed-head`; a history rewritten on purpose is a new log: sign it under a new origin)")
    }

    /// Where a mark's line was recorded, for messages.
    private func placeName(_ mark: TreeMark, _ source: LogSource) -> String {
        if case .file = source { return "at bytes \(mark.lineStart)–\(mark.lineEnd)" }
        return "as line \(mark.head.seq)"
    }

    /// The frontier of the tree of `body.size` leaves from the state, when its root is the signed one
    /// (which binds every hash of it) and the signed tree's last leaf is `leaf`; nil otherwise.
    private func signedFrontier(_ body: CheckpointBody, leaf: Digest32) throws -> MerkleFrontier? {
        let nodes = StorageNodes(storage: storage)
        let frontier = try MerkleFrontier(size: body.size, source: nodes)
        guard frontier.root(hasher: hasher) == body.root else { return nil }
        let proof = try MerkleTree(source: nodes, hasher: hasher).inclusionProof(index: body.size - 1, size: body.size)
        guard MerkleProof.verifyInclusion(leafHash: leaf, index: body.size - 1, treeSize: body.size, proof: proof, root: body.root, hasher: hasher) else { return nil }
        return frontier
    }

    /// The lines after the signed head's last line, with that line's mark and leaf hash, when the log
    /// still holds it as a verified line with the mark's seq and hash: on a file store at the offsets
    /// the signer recorded (its own, so a copy of the line elsewhere is never taken for it), on
    /// PostgreSQL as the row of its seq. Nil otherwise.
    private func resumePoint(_ mark: TreeMark, _ source: LogSource) throws -> (bytes: any LogBytes, offset: Int, mark: TreeMark, leaf: Digest32)? {
        switch source {
        case .file(let path):
            guard mark.lineEnd > mark.lineStart else { return nil }
            let log = try FileDescriptor(path: path, flags: O_RDONLY)
            guard SavedHeadLine.verifiedTime(in: log, lineStart: mark.lineStart, offset: mark.lineEnd, head: mark.head) != nil else { return nil }
            var line = [UInt8](repeating: 0, count: mark.lineEnd - mark.lineStart - 1)
            let n = try line.withUnsafeMutableBytes { try log.read(into: $0.baseAddress!, count: $0.count, at: mark.lineStart) }
            guard n == line.count else { return nil }
            return (log, mark.lineEnd, mark, line.withUnsafeBytes { hasher.leafHash($0) })
        case .postgres(let store):
            guard let postgres = storage as? PostgresTree else { return nil }
            let row = try postgres.connection.execute("SELECT hash, line FROM ledger_events WHERE seq = $1", [String(mark.head.seq)])
            guard row.count == 1, row.string(0, 0) == mark.head.hash, let text = row.string(0, 1) else { return nil }
            let line = Array(text.utf8)
            guard line.withUnsafeBufferPointer({ SavedHeadLine.verifiedTime(line: $0, head: mark.head) }) != nil else { return nil }
            return (try PostgresLineStream(store.url, from: mark.head.seq + 1), 0, TreeMark(head: mark.head), line.withUnsafeBytes { hasher.leafHash($0) })
        }
    }

    /// The log's lines from the first.
    private func lines(_ source: LogSource) throws -> any LogBytes {
        switch source {
        case .file(let path): return try FileDescriptor(path: path, flags: O_RDONLY)
        case .postgres(let store): return try PostgresLineStream(store.url, from: 1)
        }
    }
}
