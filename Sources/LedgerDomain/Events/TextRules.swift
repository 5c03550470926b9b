// MARK: - TextRules

/// The byte-level tests behind the string member kinds (see `MemberKind.problem`).
enum TextRules {
    /// True for `$<id>$<rest>`: an id of digits and lowercase letters, then printable bytes without `:`.
    static func isCryptHash(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 3, b[0] == UInt8(ascii: "$") else { return false }
        var i = 1
        while i < b.count, (b[i] >= 0x30 && b[i] <= 0x39) || (b[i] >= 0x61 && b[i] <= 0x7A) { i += 1 }
        guard i > 1, i < b.count - 1, b[i] == UInt8(ascii: "$") else { return false }
        for byte in b[(i + 1)...] where byte <= 0x20 || byte == UInt8(ascii: ":") || byte == 0x7F { return false }
        return true
    }

    /// True when no byte is an ASCII capital letter (emails are stored normalized).
    static func isLowercase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte &- UInt8(ascii: "A") < 26 { return false }
        return true
    }

    /// `^[a-z0-9]+(-[a-z0-9]+)*$`.
    static func isKebabCase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previousDash = true
        for byte in bytes {
            if byte == UInt8(ascii: "-") {
                if previousDash { return false }
                previousDash = true
            } else if (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                previousDash = false
            } else {
                return false
            }
        }
        return !previousDash
    }
}
