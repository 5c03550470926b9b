// MARK: - CheckpointBody

/// The text of a signed head (C2SP tlog-checkpoint): the origin line, the tree size in decimal
/// (no leading zero), the root hash in Base64, then any extension lines, each line ending in a
/// newline and none empty. Extension lines are kept as they are (a cosignature signs them too);
/// ledger writes none.
public struct CheckpointBody: Equatable, Sendable {
    /// The log's identity (by default, its key's name).
    public let origin: String
    /// The number of leaves (log lines) the tree holds.
    public let size: UInt64
    /// The RFC 9162 root hash of those leaves.
    public let root: Digest32
    /// Lines after the root, without their newlines (normally none).
    public let extensions: [String]

    /// A body from its parts: the origin and every extension line must be non-empty, one line.
    public init(origin: String, size: UInt64, root: Digest32, extensions: [String] = []) throws(NoteError) {
        for line in [origin] + extensions {
            guard !line.isEmpty, !line.utf8.contains(where: { $0 < 0x20 }) else {
                throw NoteError(.malformedCheckpoint, "a signed head's origin and extension lines are non-empty lines without control characters")
            }
        }
        self.origin = origin; self.size = size; self.root = root; self.extensions = extensions
    }

    /// The body in a note's `text` (with its final newline).
    public init(parsing text: String) throws(NoteError) {
        guard text.hasSuffix("\n") else { throw NoteError(.malformedCheckpoint, "a signed head's text ends in a newline") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3 else { throw NoteError(.malformedCheckpoint, "a signed head's text has an origin, a tree size and a root hash line") }
        let digits = lines[1].utf8
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              digits.first != 0x30 || digits.count == 1, let size = UInt64(lines[1]) else {
            throw NoteError(.malformedCheckpoint, "a signed head's second line is the tree size in decimal, without leading zeros")
        }
        guard let root = Digest32(base64: lines[2]) else {
            throw NoteError(.malformedCheckpoint, "a signed head's third line is the root hash: padded Base64 of 32 bytes")
        }
        try self.init(origin: lines[0], size: size, root: root, extensions: Array(lines[3...]))
    }

    /// The text: each line with its newline.
    public var text: String {
        ([origin, String(size), root.base64] + extensions).map { $0 + "\n" }.joined()
    }
}
