// MARK: - SignedNote

/// A signed note (C2SP signed-note): a text ending in a newline, a blank line, then one or more
/// signature lines. Parsed as Go's `note.Open` does: the whole note valid UTF-8 without control
/// characters other than newline, the text ending at the last blank line, at most 100 signature
/// lines. Parsing checks no signature: `verify(known:crypto:)` does.
public struct SignedNote: Sendable {
    /// The most signature lines a note may hold (Go's limit; the spec asks for at least 16).
    public static let maxSignatures = 100
    /// The largest note accepted, in bytes: far above a head with 100 signatures (about 12 KB).
    public static let maxBytes = 64 * 1024

    /// The signed text, with its final newline.
    public let text: String
    /// The signature lines in order.
    public var signatures: [NoteSignature]

    /// A note from its parts; the text must end in a newline.
    public init(text: String, signatures: [NoteSignature] = []) throws(NoteError) {
        guard text.hasSuffix("\n") else { throw NoteError(.malformedNote, "a note's text ends in a newline") }
        try Self.checkCharacters(Array(text.utf8))
        self.text = text; self.signatures = signatures
    }

    /// The note in `bytes`.
    public init(parsing bytes: [UInt8]) throws(NoteError) {
        guard bytes.count <= Self.maxBytes else { throw NoteError(.malformedNote, "a note is at most \(Self.maxBytes) bytes; this one has \(bytes.count)") }
        try Self.checkCharacters(bytes)
        var split: Int?
        var i = bytes.count - 2
        while i >= 0 {
            if bytes[i] == 0x0A && bytes[i + 1] == 0x0A { split = i; break }
            i -= 1
        }
        guard let split else { throw NoteError(.malformedNote, "a signed note has a blank line between its text and its signatures") }
        let lines = bytes[(split + 2)...]
        guard lines.last == 0x0A else { throw NoteError(.malformedNote, "a signed note ends with signature lines, each ending in a newline") }
        var signatures: [NoteSignature] = []
        var start = lines.startIndex
        while start < lines.endIndex {
            let end = lines[start...].firstIndex(of: 0x0A)!
            guard signatures.count < Self.maxSignatures else { throw NoteError(.malformedNote, "a note has at most \(Self.maxSignatures) signature lines") }
            signatures.append(try NoteSignature(parsingLine: lines[start..<end]))
            start = end + 1
        }
        self.text = String(decoding: bytes[...split], as: UTF8.self)
        self.signatures = signatures
    }

    /// The note: the text, a blank line, each signature line with its newline.
    public var bytes: [UInt8] { Array(formatted.utf8) }

    /// The note as text.
    public var formatted: String { text + "\n" + signatures.map { $0.line + "\n" }.joined() }

    /// Refuses bytes that are not UTF-8 or hold a control character other than newline.
    static func checkCharacters(_ bytes: [UInt8]) throws(NoteError) {
        if let bad = bytes.firstIndex(where: { $0 < 0x20 && $0 != 0x0A }) {
            throw NoteError(.malformedNote, "a signed note holds no control character (byte \(bad) is \(bytes[bad]))")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw NoteError(.malformedNote, "a signed note is UTF-8 text") }
    }
}
