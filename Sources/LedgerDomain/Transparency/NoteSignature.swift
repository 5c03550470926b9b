// MARK: - NoteSignature

/// One signature line of a signed note: `— NAME base64(key id ‖ signature)` (an em dash and a
/// space first). The bytes after the key id depend on the key's type: 64 for a log's Ed25519
/// signature, 8 + 64 (a big-endian timestamp, then the signature) for a cosignature.
public struct NoteSignature: Hashable, Sendable {
    /// The signing key's name.
    public let name: String
    /// The signing key's id.
    public let keyID: UInt32
    /// The bytes after the key id.
    public let signature: [UInt8]

    /// The line's prefix: U+2014 EM DASH and a space.
    static let prefix: [UInt8] = [0xE2, 0x80, 0x94, 0x20]

    /// A signature from its parts.
    public init(name: String, keyID: UInt32, signature: [UInt8]) {
        self.name = name; self.keyID = keyID; self.signature = signature
    }

    /// The signature of `line` (without its newline), as Go's `note.Open` reads one: the prefix,
    /// a valid key name up to the first space, then canonical Base64 of at least 5 bytes.
    public init(parsingLine line: ArraySlice<UInt8>) throws(NoteError) {
        guard line.starts(with: Self.prefix) else { throw NoteError(.malformedNote, "a signature line starts with `— ` (an em dash and a space)") }
        let rest = line.dropFirst(Self.prefix.count)
        guard let space = rest.firstIndex(of: 0x20) else { throw NoteError(.malformedNote, "a signature line is `— NAME BASE64`") }
        let name = String(decoding: rest[..<space], as: UTF8.self)
        if let problem = NoteKeyName.signatureLineProblem(name) { throw NoteError(.malformedNote, "a signature line's key name is not valid: \(problem)") }
        guard let bytes = Base64.decode(String(decoding: rest[(space + 1)...], as: UTF8.self)), bytes.count >= 5 else {
            throw NoteError(.malformedNote, "a signature line's signature is not padded Base64 of a key id and a signature")
        }
        self.init(name: name, keyID: UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]),
                  signature: Array(bytes[4...]))
    }

    /// `— NAME base64(key id ‖ signature)`, without a newline.
    public var line: String {
        let id: [UInt8] = [UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF)]
        return "— \(name) \(Base64.encode(id + signature))"
    }
}
