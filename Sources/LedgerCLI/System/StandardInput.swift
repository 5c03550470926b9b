import Glibc

// MARK: - StandardInput

/// Standard input read as bytes, a line at a time. A secret read this way keeps every byte: NUL and
/// bytes that are not UTF-8 reach `PasswordRule`, which refuses them, instead of being cut or
/// repaired into U+FFFD. It reads descriptor 0 a byte at a time, so it never takes more than its
/// line: the next line stays for the next read, whoever does it.
enum StandardInput {
    /// The longest line read whole (a secret is far shorter): a longer one is returned as its first
    /// `maxLine + 1` bytes, which every password rule refuses as too long, and the rest is not read
    /// (`< /dev/zero` ends at once).
    static let maxLine = 4096

    /// The next line's bytes without its newline; nil at end of input (or on a read error) before any byte.
    static func readLineBytes() -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return n == 0 && !bytes.isEmpty ? bytes : nil }
            if byte == 0x0A { return bytes }
            bytes.append(byte)
            if bytes.count > maxLine { return bytes }
        }
    }
}

extension StandardInput {
    /// All of standard input, or nil when it holds more than `limit` bytes (then at most
    /// `limit + 1` bytes are read: an endless input is cut off, not buffered). Retries on EINTR;
    /// a read error ends the input.
    static func readAll(limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, min($0.count, limit + 1 - bytes.count)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        return bytes.count > limit ? nil : bytes
    }
}
