import LedgerDomain

// MARK: - KeyStore: growth

extension KeyStore {
    /// Doubles the table (more when a window would still overflow) into a new file that replaces
    /// this one atomically: temp file, fsync, rename, fsync the folder; then re-opens it. Called
    /// holding the exclusive lock of the current file, which other writers wait on and then find
    /// replaced. A torn slot stops the growth (`torn-slot`): its key would be lost in the copy.
    func grow() throws(KeyStoreError) {
        let bytes = try readSlots(from: 0, count: capacity)
        var slots: [KeySlot] = []
        for index in 0..<capacity {
            let start = index * KeyStoreLayout.slotSize
            switch KeySlot.decode(bytes[start..<(start + KeyStoreLayout.slotSize)]) {
            case .empty: continue
            case .slot(let slot): slots.append(slot)
            case .torn: throw Self.torn(index, path)
            }
        }
        var newCapacity = capacity * 2
        while true {
            if let table = Self.table(slots, capacity: newCapacity) {
                try KeyStoreError.mapping { try FileSystem.writeAtomically(table, to: path, mode: 0o600) }
                markAllSynced()  // the new file was synced whole, keys made since the last sync included
                break
            }
            newCapacity *= 2
        }
        try followReplacement()
    }

    /// The bytes of a file of `capacity` slots holding `slots`, each at its first free slot from
    /// its home; nil when one finds no free slot in its window.
    static func table(_ slots: [KeySlot], capacity: Int) -> [UInt8]? {
        var table = KeyStoreLayout.header(capacity: capacity)
        table += [UInt8](repeating: 0, count: capacity * KeyStoreLayout.slotSize)
        var used = [Bool](repeating: false, count: capacity)
        for slot in slots {
            let home = KeyStoreLayout.home(of: slot.subject, capacity: capacity)
            guard let index = (0..<KeyStoreLayout.probeWindow).lazy.map({ (home + $0) & (capacity - 1) }).first(where: { !used[$0] })
            else { return nil }
            used[index] = true
            let offset = KeyStoreLayout.offset(ofSlot: index)
            table.replaceSubrange(offset..<(offset + KeyStoreLayout.slotSize), with: slot.encoded())
        }
        return table
    }
}
