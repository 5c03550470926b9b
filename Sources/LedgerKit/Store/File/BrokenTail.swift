// MARK: - BrokenTail

/// What `events.jsonl.broken` keeps of a torn tail: its bytes, but for the ciphertext of every
/// encrypted member, which is left out (`"ciphertext":""`). The lines were never acknowledged, and
/// their subject's key may outlive them with nothing in the log to erase it by (an account whose
/// `AccountCreated` was cut never exists): without the ciphertext nothing of the person is kept,
/// whatever becomes of the key. A member cut part-way loses what it has of its ciphertext too (with
/// the key, a prefix of AES-GCM's stream opens without its tag).
enum BrokenTail {
    /// The member whose value is left out.
    private static let marker = Array(#""ciphertext":""#.utf8)

    /// `bytes` without the values of their `ciphertext` members.
    static func kept(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == marker[0], i + marker.count <= bytes.count, bytes[i..<(i + marker.count)].elementsEqual(marker) {
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
