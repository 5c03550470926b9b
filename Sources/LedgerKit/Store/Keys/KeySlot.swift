import LedgerDomain

// MARK: - KeySlot

/// One slot of the key store (`KeyStoreLayout` gives its bytes): a subject and its key, live or
/// erased. An erased slot keeps its subject (an id, not personal data), so the store can tell a
/// key destroyed by an erasure from one that never existed, and its key bytes are zeros.
struct KeySlot: Equatable {
    /// A slot's state byte.
    enum State: UInt8 {
        case empty = 0
        case live = 1
        case erased = 2
    }

    /// Live or erased (an empty slot is not a `KeySlot`).
    var state: State
    /// Whose key it is.
    var subject: SubjectID
    /// The 32-byte key; zeros when erased.
    var key: [UInt8]

    /// What 128 bytes read from a slot hold.
    enum Decoded: Equatable {
        /// 128 zero bytes.
        case empty
        /// A whole slot.
        case slot(KeySlot)
        /// Anything else: a write cut short or damage. `subject` is the id its bytes spell, when
        /// they spell one (a torn write may have left the subject whole and the key not).
        case torn(subject: SubjectID?)
    }

    /// The slot's 128 bytes, checksum included.
    func encoded() -> [UInt8] {
        var record = [UInt8](repeating: 0, count: KeyStoreLayout.slotSize)
        let subjectBytes = Array(subject.text.utf8)
        record[KeyStoreLayout.Slot.state] = state.rawValue
        record[KeyStoreLayout.Slot.subjectLength] = UInt8(subjectBytes.count)
        record.replaceSubrange(KeyStoreLayout.Slot.subject..<(KeyStoreLayout.Slot.subject + subjectBytes.count), with: subjectBytes)
        if state == .live { record.replaceSubrange(KeyStoreLayout.Slot.key..<(KeyStoreLayout.Slot.key + 32), with: key) }
        KeyStoreLayout.seal(&record)
        return record
    }

    /// The slot in `record` (128 bytes).
    static func decode(_ record: ArraySlice<UInt8>) -> Decoded {
        Array(record).withUnsafeBytes { decode($0, checksum: KeyStoreLayout.checksum) }
    }

    /// `decode` of a record read where it lies; `checksum` is `KeyStoreLayout.checksum` (a read of
    /// the whole store passes one that reuses its SHA-256 context).
    static func decode(_ r: UnsafeRawBufferPointer, checksum: (UnsafeRawBufferPointer) -> UInt64) -> Decoded {
        switch check(r, checksum: checksum) {
        case .empty: return .empty
        case .torn(let subject): return .torn(subject: subject.flatMap { SubjectID(utf8: $0) })
        case .whole(let state, let subjectBytes):
            guard let subject = SubjectID(utf8: subjectBytes) else { return .torn(subject: nil) }
            let key = state == .live ? Array(r[KeyStoreLayout.Slot.key..<(KeyStoreLayout.Slot.key + 32)]) : [UInt8](repeating: 0, count: 32)
            return .slot(KeySlot(state: state, subject: subject, key: key))
        }
    }

    /// What `check` finds in a record, read where it lies (the subject id's bytes are the record's).
    enum Checked {
        /// 128 zero bytes.
        case empty
        /// A whole slot of `state`, its subject id's bytes not yet parsed (`SubjectID(utf8:)` decides
        /// whether they spell one; a slot whose bytes do not is torn).
        case whole(State, subject: UnsafeBufferPointer<UInt8>)
        /// A write cut short or damage; the bytes its subject length gives, when in range.
        case torn(subject: UnsafeBufferPointer<UInt8>?)
    }

    /// The one check of a slot's bytes, without copying them: its state, checksum and zeros (the
    /// rule `decode` and a whole store's read into a key table share).
    static func check(_ r: UnsafeRawBufferPointer, checksum: (UnsafeRawBufferPointer) -> UInt64) -> Checked {
        precondition(r.count == KeyStoreLayout.slotSize)
        if allZero(r) { return .empty }
        let length = Int(r[KeyStoreLayout.Slot.subjectLength])
        let subject = (1...SubjectID.maxLength).contains(length)
            ? UnsafeBufferPointer(start: r.baseAddress!.assumingMemoryBound(to: UInt8.self) + KeyStoreLayout.Slot.subject, count: length)
            : nil
        let key = r[KeyStoreLayout.Slot.key..<(KeyStoreLayout.Slot.key + 32)]
        guard let state = State(rawValue: r[KeyStoreLayout.Slot.state]), state != .empty, let subject,
              checksum(r) == UInt64(littleEndian: r.loadUnaligned(fromByteOffset: KeyStoreLayout.checksumOffset, as: UInt64.self)),
              allZero(UnsafeRawBufferPointer(rebasing: r[2..<KeyStoreLayout.Slot.subject])),
              allZero(UnsafeRawBufferPointer(rebasing: r[(KeyStoreLayout.Slot.subject + length)..<KeyStoreLayout.Slot.key])),
              allZero(UnsafeRawBufferPointer(rebasing: r[(KeyStoreLayout.Slot.key + 32)..<KeyStoreLayout.checksumOffset])),
              state == .live || allZero(UnsafeRawBufferPointer(rebasing: key))
        else { return .torn(subject: subject) }
        return .whole(state, subject: subject)
    }

    /// True when every byte of `r` is zero: eight bytes at a time (a whole store's read checks the
    /// empty half of its slots this way).
    static func allZero(_ r: UnsafeRawBufferPointer) -> Bool {
        var i = 0, bits: UInt64 = 0
        while i + 8 <= r.count {
            bits |= r.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < r.count {
            bits |= UInt64(r[i])
            i += 1
        }
        return bits == 0
    }
}
