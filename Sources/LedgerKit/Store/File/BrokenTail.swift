// MARK: - BrokenTail

/// What `events.jsonl.broken` keeps of a torn tail: its bytes, but for the values of every
/// encrypted member's `ciphertext` and of every line's `hash` and `prev`, which are left out
/// (`"ciphertext":""`). The lines were never acknowledged, and their subject's key may outlive them
/// with nothing in the log to erase it by (an account whose `AccountCreated` was cut never exists):
/// without the ciphertext nothing of the person can be opened, and without the hashes a guess of
/// it, sealed again with the key and the nonce, cannot be confirmed against the line. A member cut
/// part-way loses what it has of its value too (with the key, a prefix of AES-GCM's stream opens
/// without its tag).
enum BrokenTail {
    /// The members whose values are left out.
    private static let markers = [#""ciphertext":""#, #""hash":""#, #""prev":""#].map { Array($0.utf8) }

    /// `bytes` without the values of their `ciphertext`, `hash` and `prev` members.
    static func kept(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x22, let marker = markers.first(where: { i + $0.count <= bytes.count && bytes[i..<(i + $0.count)].elementsEqual($0) }) {
                out += marker
                i += marker.count
                // The value runs to its closing quote (Base64 holds none), or to the line's or the bytes' end.
                while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x0A { i += 1 }
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }
}
