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
        /// The names of its members, in rule order (never freed).
        let names: UnsafeBufferPointer<String>
        /// Bit `i` set when rule `i` names a personal member (`PersonalMembers`).
        let personal: UInt8
        /// The rule of the member whose account owns the personal members (`PersonalMembers.Rule`'s
        /// first source, a uid member), or -1.
        let owner: Int

        init(_ type: EventType) {
            let rules = type.payloadType.memberRules
            precondition(rules.count <= MemberSlots.capacity, "a payload declares at most \(MemberSlots.capacity) members")
            let names = rules.map(\.name)
            let rule = PersonalMembers.rule(for: type)
            self.type = type
            wireName = InlineBytes(type.rawValue)
            self.rules = InPlaceCatalogue.immortal(rules)
            payload = type.payloadType
            self.names = InPlaceCatalogue.immortal(names)
            personal = names.indices.reduce(0) { rule?.members.contains(names[$1]) == true ? $0 | UInt8(1) << $1 : $0 }
            if case .uidMember(let name)? = rule?.subject.first { owner = names.firstIndex(of: name) ?? -1 } else { owner = -1 }
        }
    }

    /// A copy of `values` that is never freed.
    private static func immortal<T>(_ values: [T]) -> UnsafeBufferPointer<T> {
        let copy = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
        _ = copy.initialize(from: values)
        return UnsafeBufferPointer(copy)
    }

    /// Every catalogue type, in `EventType.allCases` order; never freed nor written after it is made.
    nonisolated(unsafe) static let entries: UnsafeBufferPointer<Entry> = immortal(EventType.allCases.map(Entry.init))
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
