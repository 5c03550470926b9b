// MARK: - TextArena

/// Texts kept as their UTF-8 bytes side by side in large chunks: a view's emails and names without a
/// heap object each. A `String` longer than 15 bytes is an object of its own, about 64 bytes for an
/// email with its header, padding and the allocator's share; here it is its bytes and an 8-byte
/// `Ref` in the row. Texts are only added (a row that changes its text points at a new one), so a
/// `Ref` stays valid as long as its arena.
struct TextArena: Sendable {
    /// Where a text lies (its chunk, offset and length), or no text at all.
    struct Ref: Equatable, Sendable {
        fileprivate let bits: UInt64
        /// No text (an optional text that is absent).
        static let none = Ref(bits: .max)
        /// True for `none`.
        var isNone: Bool { bits == .max }
    }

    /// Bytes per chunk; a text never straddles two (a longer one has a chunk of its own).
    private static let chunkBytes = 1 << 18
    /// The length a `Ref` spells out; at it (or above) the text is its whole chunk.
    private static let wholeChunk = (1 << 20) - 1

    private var chunks: [[UInt8]] = []

    /// An empty arena.
    init() {}

    /// Bytes held (texts that rows no longer point at included).
    var byteCount: Int { chunks.reduce(0) { $0 + $1.count } }

    // MARK: - Adding

    /// Adds `text` and returns where it lies.
    mutating func add(_ text: String) -> Ref {
        var text = text
        return text.withUTF8 { add($0) }
    }

    /// Adds `text` (nil: `none`).
    mutating func add(_ text: String?) -> Ref { text.map { add($0) } ?? .none }

    /// Adds the UTF-8 bytes `utf8` and returns where they lie.
    mutating func add(_ utf8: UnsafeBufferPointer<UInt8>) -> Ref {
        let count = utf8.count
        if count >= Self.wholeChunk || count > Self.chunkBytes {
            chunks.append(Array(utf8))
            return Self.ref(chunk: chunks.count - 1, offset: 0, length: Self.wholeChunk)
        }
        // A text starts where an 18-bit offset reaches: a full chunk takes no more, not even an empty text.
        if chunks.isEmpty || chunks[chunks.count - 1].count + count > Self.chunkBytes || chunks[chunks.count - 1].count == Self.chunkBytes {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Self.chunkBytes)
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        let offset = chunks[last].count
        chunks[last].append(contentsOf: utf8)
        return Self.ref(chunk: last, offset: offset, length: count)
    }

    // MARK: - Reading

    /// Calls `body` with the bytes of `ref` (empty for `none`).
    func withBytes<R>(_ ref: Ref, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if ref.isNone { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let (chunk, offset, length) = Self.parts(ref)
        return try chunks[chunk].withUnsafeBufferPointer { all in
            let count = length == Self.wholeChunk ? all.count : length
            return try body(UnsafeBufferPointer(rebasing: all[offset..<(offset + count)]))
        }
    }

    /// The text of `ref` (nil for `none`).
    func string(_ ref: Ref) -> String? { ref.isNone ? nil : withBytes(ref) { String(decoding: $0, as: UTF8.self) } }

    /// The text of `ref`, which is not `none`.
    func text(_ ref: Ref) -> String { string(ref) ?? "" }

    /// True when `ref` holds exactly the bytes of `text` (false for `none`).
    func holds(_ ref: Ref, _ text: String) -> Bool {
        guard !ref.isNone else { return false }
        return withBytes(ref) { bytes in text.utf8.elementsEqual(bytes) }
    }

    /// True when `a` (in this arena) and `b` (in `other`) hold the same bytes, or are both `none`.
    func same(_ a: Ref, as b: Ref, in other: TextArena) -> Bool {
        guard !a.isNone, !b.isNone else { return a.isNone == b.isNone }
        return withBytes(a) { x in other.withBytes(b) { y in x.elementsEqual(y) } }
    }

    // MARK: - Layout

    /// 26 bits of chunk, 18 of offset, 20 of length.
    private static func ref(chunk: Int, offset: Int, length: Int) -> Ref {
        precondition(chunk < 1 << 26 && offset < 1 << 18 && length < 1 << 20, "a text beyond what a ref spells")
        return Ref(bits: UInt64(chunk) << 38 | UInt64(offset) << 20 | UInt64(length))
    }

    private static func parts(_ ref: Ref) -> (chunk: Int, offset: Int, length: Int) {
        (Int(ref.bits >> 38), Int((ref.bits >> 20) & ((1 << 18) - 1)), Int(ref.bits & ((1 << 20) - 1)))
    }
}
