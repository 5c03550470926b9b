// MARK: - PasswordRule

/// What a password is: text, exactly. The one place that says which bytes make a password, how it
/// is prepared before hashing (RFC 8265's OpaqueString profile) and which stored hashes were made
/// from prepared text. Every command that takes a password, on every store, goes through it.
public enum PasswordRule {
    /// The fewest characters a new password has (counted after preparation).
    public static let minimumLength = 8
    /// The most UTF-8 bytes a new password has once prepared (crypt(3) takes at most 511).
    public static let maximumBytes = 511

    /// The mark before the crypt(3) string of a hash made from prepared text (`$nfc$y$…`). A hash
    /// without it was made from the bytes as typed (before this rule), and is checked that way: one
    /// yescrypt run per check either way.
    public static let preparedHashMark = "$nfc"

    /// The password typed as `bytes` (a line of standard input without its newline), as text. Bytes
    /// that are not UTF-8 become a text holding NUL, which no check accepts and every rule for a new
    /// password refuses (`invalid-password`): invalid bytes never collapse into U+FFFD, so two
    /// different byte strings never become one password.
    public static func text(fromBytes bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return "\u{0}" + String(decoding: bytes, as: UTF8.self)
    }

    /// True when `password` can be checked or hashed at all: no NUL (which crypt(3) would cut at).
    public static func isCheckable(_ password: String) -> Bool { !password.utf8.contains(0) }

    /// What is wrong with `password` as a new password (sign-up, change, reset): the refusal's reason
    /// and message, else nil. Text of characters OpaqueString's FreeformClass allows (`isAllowed`),
    /// at least `minimumLength` characters and at most `maximumBytes` bytes once prepared.
    public static func problem(_ password: String) -> (reason: String, message: String)? {
        if !password.unicodeScalars.allSatisfy(isAllowed) {
            return ("invalid-password", "the password must be text: UTF-8 without NUL bytes, control, format, invisible, private-use or unassigned characters")
        }
        let text = prepared(password)
        guard text.count >= minimumLength else {
            return ("password-too-short", "the password must have at least \(minimumLength) characters")
        }
        guard text.utf8.count <= maximumBytes else {
            return ("password-too-long", "the password must have at most \(maximumBytes) bytes of UTF-8")
        }
        return nil
    }

    /// True for a character a new password may hold: not a control (C0, DEL, C1), a format or
    /// default-ignorable character (a BOM, a zero-width space, a bidi control: invisible, so the same
    /// visible text would not sign in), a line or paragraph separator, a surrogate, a private-use,
    /// unassigned or noncharacter code point (RFC 8264's FreeformClass disallows them); the zero-width
    /// joiner and non-joiner stay allowed, as some scripts need them.
    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value == 0x200C || scalar.value == 0x200D { return true }
        guard UnicodeNFC.isAssigned(scalar) else { return false }  // in the pinned Unicode 14.0.0
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: return false
        default: return !properties.isNoncharacterCodePoint && !properties.isDefaultIgnorableCodePoint
        }
    }

    /// `password` prepared as RFC 8265's OpaqueString enforces it: every non-ASCII space (category
    /// Zs) mapped to U+0020, then Unicode Normalization Form C (`UnicodeNFC`, Unicode 14.0.0).
    public static func prepared(_ password: String) -> String {
        var mapped = ""
        mapped.unicodeScalars.reserveCapacity(password.unicodeScalars.count)
        for scalar in password.unicodeScalars {
            mapped.unicodeScalars.append(scalar.value > 0x7F && scalar.properties.generalCategory == .spaceSeparator ? " " : scalar)
        }
        return UnicodeNFC.normalize(mapped)
    }

    /// What a check of `password` against `storedHash` hashes: the prepared text and the crypt(3)
    /// setting without the mark for a marked hash, the text as typed and the whole hash otherwise.
    public static func checkInput(_ password: String, against storedHash: String) -> (text: String, cryptHash: String) {
        guard storedHash.hasPrefix(preparedHashMark + "$") else { return (password, storedHash) }
        return (prepared(password), String(storedHash.dropFirst(preparedHashMark.count)))
    }
}
