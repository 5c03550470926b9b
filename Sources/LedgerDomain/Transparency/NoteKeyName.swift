// MARK: - NoteKeyName

/// The rules of a signed-note key name (C2SP signed-note, as Go's `sumdb/note` checks them): not
/// empty, no `+` (it separates a key's parts), no Unicode space (Go's `unicode.IsSpace`: the
/// White_Space property), and — for a key ledger makes or reads — no control character (C0, DEL, C1).
public enum NoteKeyName {
    /// The longest name accepted, in bytes (a name is an identifier such as `example.com/log`).
    public static let maxBytes = 256

    /// Nil when `name` is a valid name of a key ledger makes or reads (at most `maxBytes`); else why
    /// not, in a few words.
    public static func problem(_ name: String) -> String? {
        if let problem = signatureLineProblem(name) { return problem }
        if name.utf8.count > maxBytes { return "it is longer than \(maxBytes) bytes" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { return "it holds a control character" }
        return nil
    }

    /// Nil when `name` may name a signature line's key, as Go's `note.Open` reads one: not empty, no
    /// `+`, no space; no length limit, and DEL or a C1 control allowed (the note as a whole holds no
    /// C0 control). Such a line names no key ledger reads: an unknown signature, ignored.
    public static func signatureLineProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        for scalar in name.unicodeScalars {
            if scalar == "+" { return "it holds a `+`" }
            if isSpace(scalar) { return "it holds a space" }
        }
        return nil
    }

    /// Throws `bad-key-name` unless `name` is valid.
    public static func check(_ name: String) throws(NoteError) {
        if let problem = problem(name) { throw NoteError(.badKeyName, "a key name must be non-empty text without `+`, spaces or control characters; \(problem)") }
    }

    /// The Unicode White_Space characters (what Go's `unicode.IsSpace` answers true for).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }
}
