// MARK: - EmailRule

/// The rule an email must follow to be registered or moved to: `local@domain.tld`, normalized by
/// trimming surrounding spaces and tabs and lowercasing ASCII letters. `problem` names the first
/// thing wrong, so every command that takes an email says the same thing about it.
///
/// - At most 254 characters in all (RFC 5321's path limit), the local part at most 64.
/// - The local part is a dot-atom (RFC 5321/5322): letters, digits and ``!#$%&'*+-/=?^_`{|}~``, in
///   atoms joined by single dots, so no leading, trailing or doubled dot. Quoted local parts are refused.
/// - The domain is two or more dot-separated labels of `a-z`, `0-9` and `-`, none empty or starting or
///   ending with `-`; the last (the top-level domain) is 2+ letters, or an internationalized one in
///   its ASCII form: `xn--` then letters, digits and hyphens (`xn--p1ai` is .рф). A domain written
///   in Unicode (`müller.de`) is refused with a message that asks for its ASCII (punycode) form.
public enum EmailRule {
    /// The longest email accepted, in characters.
    public static let maxLength = 254
    /// The longest local part accepted, in characters.
    public static let maxLocalLength = 64

    /// `raw` trimmed of surrounding spaces and tabs, ASCII letters lowercased.
    public static func normalized(_ raw: String) -> String { raw.trimmingSpaces.lowercasedASCII }

    /// What is wrong with the normalized `email`, in words; nil when it follows the rule.
    public static func problem(_ email: String) -> String? {
        let shape = "the email must look like local@domain.tld"
        if email.count > maxLength { return "the email has \(email.count) characters; at most \(maxLength) are allowed" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return shape + " (one @, text on both sides)" }
        let (local, domain) = (parts[0], parts[1])
        if local.count > maxLocalLength { return "the part before @ has \(local.count) characters; at most \(maxLocalLength) are allowed" }
        if !local.unicodeScalars.allSatisfy(\.isASCII) { return "the part before @ must be ASCII" }
        guard isDotAtom(local) else {
            return "the part before @ must be letters, digits or !#$%&'*+-/=?^_`{|}~ joined by single dots (no dot first, last or twice in a row)"
        }
        if !domain.unicodeScalars.allSatisfy(\.isASCII) {
            return "the domain \(domain) is not ASCII: give its ASCII (punycode) form, e.g. xn--mller-kva.de for müller.de"
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return shape + " (a domain with a top-level domain, such as example.com)" }
        for label in labels {
            guard !label.isEmpty, !label.hasPrefix("-"), !label.hasSuffix("-"), label.count <= 63,
                  label.unicodeScalars.allSatisfy({ isLetterOrDigit($0) || $0 == "-" })
            else { return shape + " (domain labels of a-z, 0-9 and -, none empty or starting or ending with -)" }
        }
        guard isTopLevelDomain(labels[labels.count - 1]) else {
            return shape + " (a top-level domain of 2+ letters, or xn-- and its ASCII form)"
        }
        return nil
    }

    /// True when `local` is atoms of atext joined by single dots.
    static func isDotAtom(_ local: Substring) -> Bool {
        let atoms = local.split(separator: ".", omittingEmptySubsequences: false)
        return atoms.allSatisfy { atom in !atom.isEmpty && atom.unicodeScalars.allSatisfy(isAtext) }
    }

    /// RFC 5322's atext: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    static func isAtext(_ c: Unicode.Scalar) -> Bool {
        isLetterOrDigit(c) || ("A"..."Z").contains(c) || "!#$%&'*+-/=?^_`{|}~".unicodeScalars.contains(c)
    }

    /// A top-level domain: 2+ letters, or `xn--` and letters, digits and hyphens (an IDN's ASCII form).
    static func isTopLevelDomain(_ label: Substring) -> Bool {
        if label.hasPrefix("xn--") {
            let rest = label.dropFirst(4)
            return !rest.isEmpty && rest.unicodeScalars.allSatisfy { isLetterOrDigit($0) || $0 == "-" }
        }
        return label.count >= 2 && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
    }

    private static func isLetterOrDigit(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("0"..."9").contains(c) }
}
