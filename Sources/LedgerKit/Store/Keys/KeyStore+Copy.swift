import Glibc
import LedgerDomain

// MARK: - KeyStore: copies

/// What `export --keys` and `import --keys` need: the whole key store as it stands, every subject
/// in it, and a copy made slot by slot (a key given, not drawn).
extension KeyStore {
    /// The whole file, read under a shared lock of the file the path names (a writer's slot is never
    /// read half-written): the bytes of a key store file (`events.keys` format).
    public func snapshot() throws(KeyStoreError) -> [UInt8] {
        while true {
            try KeyStoreError.mapping { try file.lock(LOCK_SH) }
            let current = file
            defer { current.unlock() }
            if try followReplacement() { continue }
            return try Self.read(file, at: 0, count: KeyStoreLayout.fileSize(capacity: capacity))
        }
    }

    /// Every subject the store knows, with its key (nil when erased), in slot order. A torn slot throws.
    public func subjects() throws(KeyStoreError) -> [(subject: SubjectID, key: [UInt8]?)] {
        let table = try snapshot()
        // One SHA-256 context for every slot's checksum (a key ring reads a store of 100,000s of them).
        let sha = SHA256Context()
        let checksum = { (record: UnsafeRawBufferPointer) -> UInt64 in
            sha.digest(UnsafeRawBufferPointer(rebasing: record[0..<KeyStoreLayout.checksumOffset])).a.byteSwapped
        }
        var out: [(subject: SubjectID, key: [UInt8]?)] = []
        var torn: Int?
        table.withUnsafeBytes { all in
            for index in 0..<capacity {
                let start = KeyStoreLayout.offset(ofSlot: index)
                switch KeySlot.decode(UnsafeRawBufferPointer(rebasing: all[start..<(start + KeyStoreLayout.slotSize)]), checksum: checksum) {
                case .empty: continue
                case .slot(let slot): out.append((slot.subject, slot.state == .live ? slot.key : nil))
                case .torn: torn = index; return
                }
            }
        }
        if let torn { throw Self.torn(torn, path) }
        return out
    }

    /// Stores `key` as the live key of `subject` (a copy of another store's), or marks it erased
    /// when `key` is nil. Refused when the subject already has another key, or was erased and a key
    /// is given: a copy never changes what a store says of a subject.
    public func adopt(_ subject: SubjectID, key: [UInt8]?) throws(KeyStoreError) {
        guard let key else { return try erase(subject: subject) }
        guard key.count == AESGCM.keySize else { throw KeyStoreError(.damaged, "the key of \(subject) has \(key.count) bytes, not 32") }
        switch try state(of: subject) {
        case .live:
            guard try self.key(for: subject) == key else { throw KeyStoreError(.damaged, "\(subject) already has another key in \(path)") }
        case .erased:
            throw KeyStoreError(.subjectErased, "the key of \(subject) was erased in \(path); it is never made again")
        case .absent:
            _ = try createKey(for: subject, random: GivenBytes(key))
        }
    }
}

/// A random source that gives one key it was handed (`adopt`: `createKey` stores what it draws).
private struct GivenBytes: RandomSource {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func bytes(_ count: Int) -> [UInt8] { Array(bytes.prefix(count)) }
}
