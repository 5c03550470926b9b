// MARK: - InPlaceCatalogue

/// What the in-place reader needs of each catalogue type, derived from `EventType` and its payload once.
enum InPlaceCatalogue {
    /// One catalogue type: plain values (its rules are never freed), so reading one per line costs
    /// no reference counting.
    struct Entry: @unchecked Sendable {
        /// The type.
        let type: EventType
        /// Its wire name (`rawValue`).
        let wireName: InlineBytes
        /// Its payload's member rules, allocated once for the life of the process.
        let rules: UnsafeBufferPointer<MemberRule>
        /// Its payload type, which reads the view fact.
        let payload: any DescribedPayload.Type
    }

    /// A copy of `rules` that is never freed.
    private static func immortal(_ rules: [MemberRule]) -> UnsafeBufferPointer<MemberRule> {
        let copy = UnsafeMutableBufferPointer<MemberRule>.allocate(capacity: rules.count)
        _ = copy.initialize(from: rules)
        return UnsafeBufferPointer(copy)
    }

    /// Every catalogue type, in `EventType.allCases` order.
    static let entries: [Entry] = EventType.allCases.map {
        Entry(type: $0, wireName: InlineBytes($0.rawValue), rules: immortal($0.payloadType.memberRules), payload: $0.payloadType)
    }
}

// MARK: - InlineBytes

/// A short byte string (a wire name) held inline.
struct InlineBytes {
    /// The number of bytes.
    let count: Int
    private var storage = InlineArray<32, UInt8>(repeating: 0)

    /// The UTF-8 of `text` (at most 32 bytes).
    init(_ text: String) {
        precondition(text.utf8.count <= 32, "wire names are at most 32 bytes")
        count = text.utf8.count
        for (index, byte) in text.utf8.enumerated() { storage[index] = byte }
    }

    /// True when `bytes` starts with these bytes.
    @inline(__always)
    func isPrefix(of bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= count else { return false }
        let own = storage.span
        for k in 0..<count where own[k] != bytes[k] { return false }
        return true
    }
}
