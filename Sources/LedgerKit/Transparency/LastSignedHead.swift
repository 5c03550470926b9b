import Glibc
import LedgerDomain

// MARK: - LastSignedHead

/// The head `ledger head --key` signed last, kept beside the log so the next signing checks only
/// the lines after it: `<log>.signed` on a file store (a line `SEQ HASH START END` locating the
/// head's last line in the log, then the signed note), the row of `ledger_signed_head` on a
/// PostgreSQL store (the note). Written by anyone who can write the data folder, so nothing in it
/// is taken on its word: the note must verify with the signing key, and its root and last line are
/// checked against the tree's state and the log (`LogTree.signingRoot`); one that fails is ignored.
public struct LastSignedHead: Equatable, Sendable {
    /// The signed note, as printed (cosignatures included).
    public let note: String
    /// Where the head's last line lies in the log file (its seq, hash and offsets); nil on PostgreSQL
    /// or when the file's first line does not parse.
    let line: TreeMark?

    /// The largest file read: a note and its locating line.
    static let maxBytes = SignedNote.maxBytes + 256

    /// The file beside the log at `logPath`.
    public static func path(forLog logPath: String) -> String { logPath + ".signed" }

    /// The head recorded in the file at `path`; nil when absent, too large or not of this form. A
    /// symbolic link or a file that is not regular throws `SystemError` (exit 3).
    static func load(path: String) throws -> LastSignedHead? {
        guard FileSystem.exists(path) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, limit: maxBytes)
        } catch let error as SystemError where error.code == EFBIG {
            return nil
        }
        guard let newline = bytes.firstIndex(of: 0x0A) else { return nil }
        let note = String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        return LastSignedHead(note: note, line: Self.mark(parsing: bytes[..<newline]))
    }

    /// `SEQ HASH START END` as a mark; nil unless every field is well formed.
    private static func mark(parsing line: ArraySlice<UInt8>) -> TreeMark? {
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 4, let seq = Int(fields[0]), let start = Int(fields[2]), let end = Int(fields[3]),
              seq >= 0, start >= 0, end >= start, end < 1 << 62, Digest32(hex: fields[1]) != nil else { return nil }
        return TreeMark(head: Head(seq: seq, hash: fields[1]), lineStart: start, lineEnd: end)
    }

    /// Records `note`, whose last line is `mark` (nil: an empty log), at `path`: temporary file,
    /// fsync, rename, fsync of the folder; mode 0644 (it holds no secret).
    static func save(note: String, mark: TreeMark?, path: String) throws {
        let mark = mark ?? TreeMark(head: .empty)
        let text = "\(mark.head.seq) \(mark.head.hash) \(mark.lineStart) \(mark.lineEnd)\n" + note
        try FileSystem.writeAtomically(Array(text.utf8), to: path, mode: 0o644)
    }

    /// The head recorded in `ledger_signed_head`, nil when there is none.
    static func load(_ connection: PostgresConnection) throws -> LastSignedHead? {
        let row = try connection.execute("SELECT note FROM ledger_signed_head WHERE id = 1")
        guard row.count == 1, let note = row.string(0, 0), note.utf8.count <= maxBytes else { return nil }
        return LastSignedHead(note: note, line: nil)
    }

    /// Records `note` in `ledger_signed_head`, replacing the head signed before.
    static func save(note: String, _ connection: PostgresConnection) throws {
        try connection.execute("INSERT INTO ledger_signed_head (id, note) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET note = EXCLUDED.note", [note])
    }
}
