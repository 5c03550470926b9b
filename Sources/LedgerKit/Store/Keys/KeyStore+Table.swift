import LedgerDomain

// MARK: - KeyStore: the whole store as a key table

extension KeyStore {
    /// Every subject the store knows, read in one pass of the whole file (as `subjects()` reads it,
    /// each slot checked by `KeySlot.check`): the accounts' keys as an `AccountKeyTable`, without a
    /// string or an array made per account, and the address subjects with their keys (nil when
    /// erased). A torn slot throws.
    func keyTable() throws(KeyStoreError) -> (accounts: AccountKeyTable, addresses: [(subject: SubjectID, key: [UInt8]?)]) {
        let file = try snapshot()
        let sha = SHA256Context()
        let checksum = { (record: UnsafeRawBufferPointer) -> UInt64 in
            sha.digest(UnsafeRawBufferPointer(rebasing: record[0..<KeyStoreLayout.checksumOffset])).a.byteSwapped
        }
        var torn: Int?
        var addresses: [(subject: SubjectID, key: [UInt8]?)] = []
        let accounts = file.withUnsafeBytes { all -> AccountKeyTable in
            var entries: [(uid: UUIDBits, key: UnsafeRawBufferPointer?)] = []
            entries.reserveCapacity(capacity / 2)
            for index in 0..<capacity {
                let start = KeyStoreLayout.offset(ofSlot: index)
                let record = UnsafeRawBufferPointer(rebasing: all[start..<(start + KeyStoreLayout.slotSize)])
                switch KeySlot.check(record, checksum: checksum) {
                case .empty: continue
                case .torn: torn = index
                case .whole(let state, let subjectBytes):
                    let key = state == .live ? UnsafeRawBufferPointer(rebasing: record[KeyStoreLayout.Slot.key..<(KeyStoreLayout.Slot.key + AESGCM.keySize)]) : nil
                    if let uid = SubjectID.account(utf8: subjectBytes) {
                        entries.append((uid, key))
                    } else if let subject = SubjectID(utf8: subjectBytes) {
                        addresses.append((subject, key.map { Array($0) }))
                    } else {
                        torn = index
                    }
                }
                if torn != nil { break }
            }
            return AccountKeyTable(torn == nil ? entries : [])
        }
        if let torn { throw Self.torn(torn, path) }
        return (accounts, addresses)
    }
}
