import Glibc
import LedgerDomain

// MARK: - SignedHeadCheck

/// `ledger verify --signed-head`'s check: the note is signed by the log's key and cosigned by every
/// named witness (else `bad-signature`), and the log's first SIZE lines have its root (else
/// `signed-head-mismatch`: a head past the log's intact prefix, or a history rewritten after the
/// head was signed). The root comes from the tree's state, extended with checked lines as `ledger
/// head` does; `verify` checks that state against the log too (`TreeCheck`). A log file where no
/// state can be written (a read-only copy) has the root computed from its lines instead.
public enum SignedHeadCheck {
    /// What a check found: the head (when its signatures verified) and the problems.
    public struct Outcome: Sendable {
        /// The checkpoint, when the signatures verified.
        public let body: CheckpointBody?
        /// `bad-signature` or `signed-head-mismatch` problems; empty when the head holds.
        public let problems: [LogProblem]
    }

    /// The bytes of the signed-head file at `path`: a regular file (never through a symbolic link)
    /// of at most `SignedNote.maxBytes`; nil when it is larger (it is no signed head).
    public static func read(_ path: String) throws -> [UInt8]? {
        do {
            return try FileSystem.read(path, limit: SignedNote.maxBytes)
        } catch let error as SystemError where error.code == EFBIG {
            return nil
        }
    }

    /// Checks `note` (nil: a file too large to be one) against the log of `source`.
    public static func check(_ note: [UInt8]?, logKey: NoteVerifierKey, witnessKeys: [NoteVerifierKey], source: LogSource) throws -> Outcome {
        guard let note else {
            return Outcome(body: nil, problems: [LogProblem(line: 0, kind: .badSignature, message: "not a signed head: a signed note is at most \(SignedNote.maxBytes) bytes")])
        }
        let body: CheckpointBody
        do {
            body = try SignedHead.verify(note, logKey: logKey, witnessKeys: witnessKeys)
        } catch {
            return Outcome(body: nil, problems: [LogProblem(line: 0, kind: .badSignature, message: error.message)])
        }
        let found: (size: UInt64, root: Digest32?)
        do {
            let tree: LogTree
            switch source {
            case .file(let path): tree = try LogTree.open(logPath: path)
            case .postgres(let store): tree = try LogTree.open(store: store)
            }
            found = (tree.size, body.size <= tree.size ? try tree.root(size: body.size) : nil)
        } catch let error as StoreError where error.code == .historyRewritten {
            // `verify` reports the rewrite itself (history-rewritten): the tree's state cannot answer.
            return Outcome(body: body, problems: [])
        } catch let error as SystemError where error.isPermissionDenied || error.code == EROFS {
            // A log read where no tree state can be written (a read-only copy): the lines themselves.
            guard case .file(let path) = source else { throw error }
            found = try rootFromLines(path, size: body.size)
        }
        let line = Int(clamping: body.size)
        guard let root = found.root else {
            return Outcome(body: body, problems: [LogProblem(line: line, kind: .signedHeadMismatch,
                message: "the signed head covers \(body.size) lines, but the log's intact prefix has \(found.size): lines were removed after it was signed, or it is another log's")])
        }
        guard root == body.root else {
            return Outcome(body: body, problems: [LogProblem(line: line, kind: .signedHeadMismatch,
                message: "the signed head's root for the first \(body.size) lines is \(body.root.base64), but the log's is \(root.base64): its history was rewritten after the head was signed")])
        }
        return Outcome(body: body, problems: [])
    }

    /// The root of the first `size` verified lines of the log file at `path`, computed from the lines
    /// (no tree state); nil root when its intact prefix is shorter (with that prefix's size).
    private static func rootFromLines(_ path: String, size: UInt64) throws -> (size: UInt64, root: Digest32?) {
        let hasher = MerkleHasher.sha256
        let log = try FileDescriptor(path: path, flags: O_RDONLY)
        var frontier = MerkleFrontier()
        var checker = ChainChecker()
        if size > 0 {
            try LogScanner.scanFactsLendingChecker(log, from: 0, checker: &checker, { item, _, chunk in
                guard case .event(_, _, let start, let length) = item else { return false }
                frontier.append(hasher.leafHash(UnsafeRawBufferPointer(chunk.bytes(start..<(start + length - 1)))), hasher: hasher) { _ in }
                return frontier.size < size
            }, endOfChunk: { _, _ in true })
        }
        return (frontier.size, frontier.size == size ? frontier.root(hasher: hasher) : nil)
    }
}
