import Glibc
import LedgerDomain

// MARK: - SignedHeadCheck

/// `ledger verify --signed-head`'s check: the note is signed by the log's key and cosigned by every
/// named witness (else `bad-signature`), and the log's first SIZE lines have its root (else
/// `signed-head-mismatch`: a head past the log's intact prefix, or a history rewritten after the
/// head was signed). The root is computed from the log's lines (`LogRoot`), never taken from the
/// tree's state: `verify` reads every line anyway, and no cache may vouch for the history.
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
        // The root comes from the log's own lines (`LogRoot`), never from the tree's state: a state
        // forged to reproduce the signed root must not vouch for a history the log no longer holds.
        let found = try LogRoot.prefix(source, size: body.size)
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
}
