// MARK: - OneLine

/// A message made one line: an argument or a `LEDGER_*` value quoted in an error may hold a newline
/// or an escape sequence, and echoed raw it would print a second `ledger:` line of its own making.
enum OneLine {
    /// `text` with each control character (C0, DEL, C1, the line and paragraph separators) written
    /// as `\n`, `\r`, `\t` or `\u{XX}`; every other character is kept.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else { result.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// True for a scalar that moves the cursor, ends a line or starts a terminal escape.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

// MARK: - RecordedNote

/// What a command has recorded so far (a registration, a session), said on standard error when its
/// standard output then fails, so the user learns what was done although its output was lost.
/// A class: the context is copied into each command, and the note must outlive the copy.
public final class RecordedNote {
    /// What was recorded, in order.
    public private(set) var lines: [String] = []

    /// An empty note.
    public init() {}

    /// Notes that `what` was recorded (durably).
    public func note(_ what: String) { lines.append(what) }
}
