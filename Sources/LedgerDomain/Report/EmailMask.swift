// MARK: - EmailMask

/// Emails as the report shows them by default.
public enum EmailMask {
    /// `a***@example.com`: the first character of the local part, `***`, and the domain; a value
    /// without `@` keeps only its first character.
    public static func mask(_ email: String) -> String {
        guard let first = email.first else { return "***" }
        guard let at = email.lastIndex(of: "@") else { return "\(first)***" }
        if at == email.startIndex { return "***" + email[at...] }
        return "\(first)***" + email[at...]
    }

    /// `text` with every email-shaped piece (`local@domain.tld`) replaced by its `mask`: for free
    /// text such as a failure message ("the email carol@example.com is already in use"). Every exact
    /// occurrence of `email` (the row's own, when known) is masked first, so an email the shape
    /// scan would cut short (`carol)@example.com`) is masked whole too.
    public static func maskEmails(in text: String, including email: String? = nil) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let text = email.map { replacing($0, with: mask($0), in: text) } ?? text
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var copied = 0, i = 0
        while i < scalars.count {
            guard scalars[i] == "@" else { i += 1; continue }
            var start = i
            while start > copied, isLocal(scalars[start - 1]) { start -= 1 }
            var end = i + 1
            while end < scalars.count, isDomain(scalars[end]) { end += 1 }
            while end > i + 1, scalars[end - 1] == "." || scalars[end - 1] == "-" { end -= 1 }
            let domain = scalars[(i + 1)..<end]
            guard start < i, domain.contains("."), domain.first != "." else { i += 1; continue }
            out.append(contentsOf: scalars[copied..<start])
            out.append(contentsOf: mask(String(String.UnicodeScalarView(scalars[start..<end]))).unicodeScalars)
            copied = end
            i = end
        }
        out.append(contentsOf: scalars[copied...])
        return String(out)
    }

    /// `text` with every occurrence of `target` (compared byte for byte) replaced by `replacement`.
    private static func replacing(_ target: String, with replacement: String, in text: String) -> String {
        let needle = Array(target.utf8), bytes = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= bytes.count else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == needle[0], i + needle.count <= bytes.count, bytes[i..<(i + needle.count)].elementsEqual(needle) {
                out.append(contentsOf: replacement.utf8)
                i += needle.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A character of an email's local part as it appears in text (printable ASCII, no delimiter).
    private static func isLocal(_ c: Unicode.Scalar) -> Bool {
        c.value > 0x20 && c.value < 0x7F && !"\"'`\\()<>[]{},;:@".unicodeScalars.contains(c)
    }

    /// A character of an email's domain.
    private static func isDomain(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "." || c == "-"
    }
}
