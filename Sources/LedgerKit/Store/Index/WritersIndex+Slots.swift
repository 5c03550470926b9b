import LedgerDomain

// MARK: - WritersIndex: slots

/// The open-addressing table of slots: their keys, and the probe that finds or inserts one.
extension WritersIndex {
    /// The tag of a stream slot of `category`.
    static func tag(_ category: StreamCategory) -> Tag? {
        switch category {
        case .registration: .registrationStream
        case .session: .sessionStream
        case .signin: .signinStream
        case .account: .accountStream
        case .migration: .migrationStream
        }
    }

    /// 16 bytes for an id: its bits when it is a lowercase UUID, else the first 16 bytes of its SHA-256.
    static func key(_ text: String) -> UUIDBits {
        if let bits = Identifiers.uuidBits(text) { return bits }
        return hashKey("id\u{0}" + text)
    }

    /// 16 bytes for an email: the first 16 bytes of SHA-256 of it.
    static func emailKey(_ email: String) -> UUIDBits { hashKey("email\u{0}" + email) }

    private static func hashKey(_ text: String) -> UUIDBits {
        var text = text
        return text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                SHA256.digest(UnsafeRawBufferPointer(utf8), into: digest.baseAddress!)
                let high = digest[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let low = digest[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return UUIDBits(high: high, low: low)
            }
        }
    }

    /// The byte offset of the slot holding `(tag, key)`; with `inserting`, a fresh slot for it when absent.
    /// Nil also when a whole round finds neither it nor a free slot (a damaged file: never an endless probe).
    func find(_ tag: Tag, _ key: UUIDBits, inserting: Bool) -> Int? {
        let mask = capacity - 1
        var i = Int(truncatingIfNeeded: (key.high ^ (key.low &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(tag.rawValue)) >> 7) & mask
        for _ in 0..<capacity {
            let slot = Self.headerSize + i * Self.slotSize
            let found = self[slot, Slot.tag]
            if found == 0 {
                guard inserting else { return nil }
                self[slot, Slot.key] = key
                for byte in Slot.value { store(UInt8(0), at: slot + byte) }
                for byte in Slot.words { store(UInt8(0), at: slot + byte) }
                self[slot, Slot.tag] = tag.rawValue  // the tag last: a slot is whole once tagged
                count += 1
                return slot
            }
            if found == tag.rawValue && self[slot, Slot.key] == key { return slot }
            i = (i + 1) & mask
        }
        return nil
    }

}
