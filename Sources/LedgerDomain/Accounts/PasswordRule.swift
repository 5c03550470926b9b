// MARK: - PasswordRule

/// What a password is: text, exactly. The one place that says which bytes make a password, how it
/// is prepared before hashing (RFC 8265's OpaqueString profile) and which stored hashes were made
/// from prepared text. Every command that takes a password, on every store, goes through it.
public enum PasswordRule {
    /// The fewest characters a new password has (counted after preparation).
    public static let minimumLength = 8

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
    /// and message, else nil. Text without control characters (OpaqueString's FreeformClass refuses
    /// them), at least `minimumLength` characters once prepared.
    public static func problem(_ password: String) -> (reason: String, message: String)? {
        if password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return ("invalid-password", "the password must be text: UTF-8 without NUL bytes or control characters")
        }
        guard prepared(password).count >= minimumLength else {
            return ("password-too-short", "the password must have at least \(minimumLength) characters")
        }
        return nil
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
