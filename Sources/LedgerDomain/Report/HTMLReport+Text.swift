// MARK: - HTMLReport: text

/// How the report spells text, numbers and times: escaped for HTML, per mille as percent, UTC labels.
extension HTMLReport {
    /// `text` safe in HTML text and in double- or single-quoted attributes.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline are shown as U+FFFD.
                if scalar.value < 0x20 && scalar != "\t" && scalar != "\n" || scalar.value == 0x7F {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `text` escaped, each `` `span` `` of it set as `<code>span</code>` (a backtick left unpaired is
    /// dropped): the CLI's messages quote commands that way, and a page shows no literal backticks.
    static func withCodeSpans(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        var out = ""
        for (index, part) in parts.enumerated() {
            let inside = index % 2 == 1 && index < parts.count - 1
            out += inside ? "<code>\(escape(String(part)))</code>" : escape(String(part))
        }
        return out
    }

    /// An email (or its mask) escaped, breakable only before its `@` and its dots: each piece kept on
    /// one line, a `<wbr>` between pieces, so a narrow column never splits a word of it.
    static func emailHTML(_ email: String) -> String {
        var pieces: [String] = []
        var piece = ""
        for character in email {
            if (character == "@" || character == ".") && !piece.isEmpty { pieces.append(piece); piece = "" }
            piece.append(character)
        }
        pieces.append(piece)
        return pieces.map { "<span class=\"nw\">\(escape($0))</span>" }.joined(separator: "<wbr>")
    }

    /// `40.0%` from 400 per mille.
    static func percent(_ perMille: Int) -> String { "\(perMille / 10).\(perMille % 10)%" }

    /// `2026-11-29 09:00` (UTC).
    static func hourLabel(_ time: Timestamp) -> String { dateLabel(time) + " " + clockLabel(time) }

    /// `2026-11-29`.
    static func dateLabel(_ time: Timestamp) -> String { String(time.rfc3339.prefix(10)) }

    /// `09:25:00`.
    static func timeLabel(_ time: Timestamp) -> String { String(time.rfc3339.dropFirst(11).prefix(8)) }

    /// `09:00`.
    static func clockLabel(_ time: Timestamp) -> String { String(time.rfc3339.dropFirst(11).prefix(5)) }
}
