// MARK: - EmailBytes

/// An email as a key by its bytes, as every index of emails keys it: two spellings of one text
/// (composed and decomposed, which `String` compares equal) are two emails, two keys.
public struct EmailBytes: Hashable, Comparable, Sendable {
    /// The email.
    public let text: String

    /// The key of `text`.
    public init(_ text: String) { self.text = text }

    /// The same bytes.
    public static func == (a: EmailBytes, b: EmailBytes) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order (the order checkpoints write the keys in).
    public static func < (a: EmailBytes, b: EmailBytes) -> Bool { a.text.utf8.lexicographicallyPrecedes(b.text.utf8) }
}
