// MARK: - NoteKeyName

/// The rules of a signed-note key name (C2SP signed-note, as Go's `sumdb/note` checks them): not
/// empty, no `+` (it separates a key's parts), no Unicode space (Go's `unicode.IsSpace`: the
/// White_Space property), and — since a note may hold no control character — no C0 control or DEL.
public enum NoteKeyName {
    /// The longest name accepted, in bytes (a name is an identifier such as `example.com/log`).
    public static let maxBytes = 256

    /// Nil when `name` is a valid key name of at most `limit` bytes; else why not, in a few words.
    /// A signature line's name has no limit (`Int.max`), as Go's `note.Open` sets none: a longer
    /// one names no key ledger reads, so its line is an unknown signature, ignored.
    public static func problem(_ name: String, limit: Int = maxBytes) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > limit { return "it is longer than \(limit) bytes" }
        for scalar in name.unicodeScalars {
            if scalar == "+" { return "it holds a `+`" }
            if isSpace(scalar) { return "it holds a space" }
            if scalar.value < 0x20 || scalar.value == 0x7F { return "it holds a control character" }
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
