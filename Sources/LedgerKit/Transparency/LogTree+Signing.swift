import Glibc
import LedgerDomain

// MARK: - LogTree: the root a signer may sign

extension LogTree {
    /// The root `ledger head --key` signs for the tree's size, and a warning to print when there is one.
    public struct SigningRoot: Sendable {
        /// The root of the log's first `size` lines.
        public let root: Digest32
        /// Lines the check hashed (those after the last signed head, or all of them).
        public let linesRead: UInt64
        /// Said on standard error (the head signed last is past the log's intact lines).
        public let warning: String?
    }

    /// The root of the tree's size, never taken from the state unchecked. From the head signed last
    /// (`LastSignedHead`) when its note verifies with `key` and names `origin`: the state's root at
    /// its size must be its root, its last line must still be in the log with the leaf that root
    /// includes, and the lines after it (chain-checked from it) must give every hash the state stored
    /// after it: O(lines since). Without a usable one, every stored hash is compared with the lines,
    /// once. A state that disagrees with the lines is `cache-mismatch` and a log whose first lines no
    /// longer have the root signed last is `signed-head-mismatch` (`SignedHeadError`): nothing to sign.
    public func signingRoot(origin: String, key: NoteVerifierKey, source: LogSource) throws -> SigningRoot {
        let last = try lastSignedHead(source)
        let body = last.flatMap { try? SignedHead.verify(Array($0.note.utf8), logKey: key) }.flatMap { $0.origin == origin ? $0 : nil }
        if let body, body.size > 0, body.size <= size, let resume = try resumePoint(after: body, last: last, source) {
            do {
                if var frontier = try signedFrontier(body, leaf: resume.leaf) {
                    let root = try compare(resume.bytes, from: resume.offset, checker: ChainChecker(continuingAfter: resume.head), frontier: &frontier)
                    return SigningRoot(root: root, linesRead: size - body.size, warning: nil)
                }
            } catch is TreeDamaged {}  // a stored hash missing or damaged: the whole state is checked instead
        }
        var frontier = MerkleFrontier()
        var rootAtSigned: Digest32?
        let signedSize = body?.size ?? 0
        let root = try compare(try lines(from: 1, source), from: 0, checker: ChainChecker(), frontier: &frontier) { frontier in
            if frontier.size == signedSize { rootAtSigned = frontier.root(hasher: self.hasher) }
        }
        guard let body, body.size > 0 else { return SigningRoot(root: root, linesRead: size, warning: nil) }
        guard body.size <= size else {
            return SigningRoot(root: root, linesRead: size, warning: "the head signed last covers \(body.size) lines, past the \(size) intact lines signed now: lines were removed since (run `ledger verify`)")
        }
        guard rootAtSigned == body.root else {
            throw SignedHeadError(.signedHeadMismatch, "the log's first \(body.size) lines no longer have the root of the head signed last (\(lastSignedName(source))): its history was rewritten since; nothing was signed (check it with `ledger verify --signed-head`; a history rewritten on purpose is a new log: sign it under a new origin)")
        }
        return SigningRoot(root: root, linesRead: size, warning: nil)
    }

    /// Records `note`, just signed for the tree's size, as the head signed last (file: temporary
    /// file, fsync, rename, fsync the folder; PostgreSQL: the row of `ledger_signed_head`).
    public func recordSignedHead(_ note: String) throws {
        if let logPath {
            try LastSignedHead.save(note: note, mark: storage.mark, path: LastSignedHead.path(forLog: logPath))
        } else if let postgres = storage as? PostgresTree {
            try LastSignedHead.save(note: note, postgres.connection)
        }
    }

    /// The head signed last, as stored (unverified).
    private func lastSignedHead(_ source: LogSource) throws -> LastSignedHead? {
        if let logPath { return try LastSignedHead.load(path: LastSignedHead.path(forLog: logPath)) }
        if let postgres = storage as? PostgresTree { return try LastSignedHead.load(postgres.connection) }
        return nil
    }

    /// What messages call the head signed last.
    private func lastSignedName(_ source: LogSource) -> String {
        logPath.map { LastSignedHead.path(forLog: $0) } ?? "the ledger_signed_head row"
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

    /// The lines after the signed head's last line, that line's head and leaf hash, when the log
    /// still holds it as a verified line (on a file store, where the stored head says it lies).
    private func resumePoint(after body: CheckpointBody, last: LastSignedHead?, _ source: LogSource) throws
        -> (bytes: any LogBytes, offset: Int, head: Head, leaf: Digest32)? {
        switch source {
        case .file(let path):
            guard let mark = last?.line, mark.head.seq == Int(body.size) else { return nil }
            let log = try FileDescriptor(path: path, flags: O_RDONLY)
            guard SavedHeadLine.verifiedTime(in: log, lineStart: mark.lineStart, offset: mark.lineEnd, head: mark.head) != nil else { return nil }
            var line = [UInt8](repeating: 0, count: mark.lineEnd - mark.lineStart - 1)
            let n = try line.withUnsafeMutableBytes { try log.read(into: $0.baseAddress!, count: $0.count, at: mark.lineStart) }
            guard n == line.count else { return nil }
            return (log, mark.lineEnd, mark.head, line.withUnsafeBytes { hasher.leafHash($0) })
        case .postgres(let store):
            guard let postgres = storage as? PostgresTree else { return nil }
            let row = try postgres.connection.execute("SELECT hash, line FROM ledger_events WHERE seq = $1", [String(body.size)])
            guard row.count == 1, let hash = row.string(0, 0), let text = row.string(0, 1) else { return nil }
            let head = Head(seq: Int(body.size), hash: hash)
            let line = Array(text.utf8)
            guard line.withUnsafeBufferPointer({ SavedHeadLine.verifiedTime(line: $0, head: head) }) != nil else { return nil }
            return (try PostgresLineStream(store.url, from: Int(body.size) + 1), 0, head, line.withUnsafeBytes { hasher.leafHash($0) })
        }
    }

    /// The log's lines from seq `first` on.
    private func lines(from first: Int, _ source: LogSource) throws -> any LogBytes {
        switch source {
        case .file(let path): return try FileDescriptor(path: path, flags: O_RDONLY)
        case .postgres(let store): return try PostgresLineStream(store.url, from: first)
        }
    }
}
