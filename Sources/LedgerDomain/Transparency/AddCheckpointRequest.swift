// MARK: - AddCheckpointRequest

/// The body of a C2SP tlog-witness `add-checkpoint` request: `old N`, the consistency proof's
/// hashes (one Base64 hash a line, at most 63), a blank line, then the signed checkpoint. Every
/// line ends in a newline; anything else is `bad-request`.
public struct AddCheckpointRequest: Sendable {
    /// The most proof lines a request may hold (the spec's limit: a proof of a 2^63-leaf tree is shorter).
    public static let maxProofLines = 63
    /// The largest request accepted, in bytes: a note at its limit and a full proof.
    public static let maxBytes = SignedNote.maxBytes + maxProofLines * 45 + 32

    /// The size of the checkpoint the client believes the witness holds.
    public let oldSize: UInt64
    /// The consistency proof from `oldSize` to the checkpoint's size.
    public let proof: [Digest32]
    /// The signed checkpoint's bytes.
    public let note: [UInt8]

    /// The request in `bytes`.
    public init(parsing bytes: [UInt8]) throws(WitnessError) {
        guard bytes.count <= Self.maxBytes else { throw WitnessError(.badRequest, "an add-checkpoint request is at most \(Self.maxBytes) bytes") }
        var lines: [ArraySlice<UInt8>] = []
        var start = 0, blank = false
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { throw WitnessError(.badRequest, "every line of an add-checkpoint request ends in a newline") }
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { blank = true; break }
            lines.append(line)
            guard lines.count <= Self.maxProofLines + 1 else { throw WitnessError(.badRequest, "an add-checkpoint request holds at most \(Self.maxProofLines) proof lines") }
        }
        guard let first = lines.first, case let old = String(decoding: first, as: UTF8.self), old.hasPrefix("old "), let size = Self.decimal(old.dropFirst(4)) else {
            throw WitnessError(.badRequest, "an add-checkpoint request starts with `old N` (N in decimal, no leading zero)")
        }
        guard blank, start < bytes.count else { throw WitnessError(.badRequest, "an add-checkpoint request has a blank line after the proof, then the signed checkpoint") }
        var proof: [Digest32] = []
        for line in lines.dropFirst() {
            guard let hash = Digest32(base64: String(decoding: line, as: UTF8.self)) else {
                throw WitnessError(.badRequest, "each consistency proof line is one hash in padded Base64")
            }
            proof.append(hash)
        }
        oldSize = size; self.proof = proof; note = Array(bytes[start...])
    }

    /// The value of decimal digits without a leading zero (`0` itself excepted); nil otherwise.
    static func decimal(_ text: Substring) -> UInt64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.first != 0x30 || digits.count == 1 else { return nil }
        return UInt64(text)
    }
}

extension AddCheckpointRequest {
    /// The request body a log sends a witness: `old N`, the proof's hashes one a line, a blank line,
    /// then the signed head `note` (which ends in a newline).
    public static func body(oldSize: UInt64, proof: [Digest32], note: String) -> [UInt8] {
        Array(("old \(oldSize)\n" + proof.map { $0.base64 + "\n" }.joined() + "\n" + note).utf8)
    }
}
