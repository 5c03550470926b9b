import Glibc
import LedgerDomain

// MARK: - KeyStore: opening and probing

extension KeyStore {
    /// Where a subject lies in the table.
    enum Probe {
        /// Its slot.
        case found(Int, KeySlot)
        /// Absent: the first empty slot of its window, where it would go.
        case free(Int)
        /// A torn slot in its window before any empty one (with the subject its bytes spell, if any).
        case torn(Int, SubjectID?)
        /// Absent, and its window has no empty slot: the table must grow.
        case full
    }

    /// The subject's place: the window of `probeWindow` slots from its home, read a page
    /// (`probeChunk` slots) at a time until it or an empty slot is found (one `pread` in the
    /// common case; two where a page wraps at the end of the table). Slots in `placed` (new keys
    /// of other subjects not written yet, `createKeys`) count as taken.
    func probe(_ subject: SubjectID, placed: [Int: [UInt8]] = [:]) throws(KeyStoreError) -> Probe {
        let home = KeyStoreLayout.home(of: subject, capacity: capacity)
        var step = 0
        while step < KeyStoreLayout.probeWindow {
            let start = (home + step) & (capacity - 1)
            let count = min(KeyStoreLayout.probeChunk, capacity - start, KeyStoreLayout.probeWindow - step)
            let chunk = try readSlots(from: start, count: count)
            for offset in 0..<count where placed[start + offset] == nil {
                let bytes = offset * KeyStoreLayout.slotSize
                switch KeySlot.decode(chunk[bytes..<(bytes + KeyStoreLayout.slotSize)]) {
                case .empty: return .free(start + offset)
                case .slot(let slot): if slot.subject == subject { return .found(start + offset, slot) }
                case .torn(let spelled): return .torn(start + offset, spelled)
                }
            }
            step += count
        }
        return .full
    }

    /// The bytes of `count` slots from slot `index`; a file shorter than that is `truncated`.
    func readSlots(from index: Int, count: Int) throws(KeyStoreError) -> [UInt8] {
        let bytes = try Self.read(file, at: KeyStoreLayout.offset(ofSlot: index), count: count * KeyStoreLayout.slotSize)
        guard bytes.count == count * KeyStoreLayout.slotSize else {
            throw KeyStoreError(.truncated, "\(path) ends inside its slots: it was cut short")
        }
        return bytes
    }

    /// Re-opens the path when it names another file than the one open (the table grew in another
    /// process); true when it did. `missing` when nothing is there any more.
    @discardableResult
    func followReplacement() throws(KeyStoreError) -> Bool {
        guard let named = FileIdentity(path: path) else {
            throw KeyStoreError(.missing, "the key store \(path) was removed while open")
        }
        guard named != file.identity() else { return false }
        (file, capacity) = try Self.open(path, writable: writable)
        return true
    }

    // MARK: - Opening

    /// The file at `path` and its capacity; when `writable`, an absent or never-initialised file
    /// (size 0, or all zeros: a creation cut short) becomes an empty table first.
    static func open(_ path: String, writable: Bool) throws(KeyStoreError) -> (FileDescriptor, Int) {
        let file = try KeyStoreError.mapping {
            try FileDescriptor(path: path, flags: writable ? O_RDWR | O_CREAT : O_RDONLY, mode: 0o600)
        }
        // A first look without the lock: a table is a table. Anything else may be another writer's
        // initialisation seen half-way (its size set, its header not yet written, then written between
        // two reads), so it is looked at again under the lock the initialiser holds.
        if let capacity = try? capacity(of: file) { return (file, capacity) }
        try KeyStoreError.mapping { try file.lock(writable ? LOCK_EX : LOCK_SH) }
        defer { file.unlock() }
        if let capacity = try capacity(of: file) { return (file, capacity) }  // initialised meanwhile
        guard writable else { throw KeyStoreError(.damaged, "\(path) is not an initialised key store") }
        try initialise(file)
        guard let capacity = try capacity(of: file) else { throw KeyStoreError(.damaged, "\(path) could not be initialised") }
        return (file, capacity)
    }

    /// The capacity of the table in `file`, nil when it was never initialised (empty, or zeros only).
    private static func capacity(of file: FileDescriptor) throws(KeyStoreError) -> Int? {
        let size = try KeyStoreError.mapping { try file.size() }
        let header = try read(file, at: 0, count: KeyStoreLayout.headerSize)
        if size == 0 { return nil }
        if header.allSatisfy({ $0 == 0 }) {
            // A creation cut short leaves zeros under a zero header, about a new table's size of
            // them (a file of any size could be given: one larger is not read, but refused);
            // anything else is damage.
            guard size <= KeyStoreLayout.largestCutShortCreation else {
                throw KeyStoreError(.damaged, "\(file.path) has no header")
            }
            let all = try read(file, at: 0, count: size)
            guard all.allSatisfy({ $0 == 0 }) else { throw KeyStoreError(.damaged, "\(file.path) has slots but no header") }
            return nil
        }
        return try KeyStoreLayout.capacity(header: header, fileSize: size, path: file.path)
    }

    /// Makes `file` an empty table: its size set (zero slots), synced, then its header written and
    /// synced, then its folder synced (the new name durable). A crash before the header leaves zeros,
    /// which the next opening initialises again.
    private static func initialise(_ file: FileDescriptor) throws(KeyStoreError) {
        let capacity = KeyStoreLayout.initialCapacity
        try KeyStoreError.mapping {
            try file.truncate(to: 0)
            try file.truncate(to: KeyStoreLayout.fileSize(capacity: capacity))
            try file.sync()
            try KeyStoreLayout.header(capacity: capacity).withUnsafeBytes { try file.write($0, at: 0) }
            try file.syncData()
            try FileSystem.syncDirectory(FileSystem.directoryName(file.path))
        }
    }

    /// Up to `count` bytes of `file` from `offset` (fewer at the end of the file), read straight
    /// into the array (a whole key store is tens of MiB: no zeroing first, no copy after).
    static func read(_ file: FileDescriptor, at offset: Int, count: Int) throws(KeyStoreError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: KeyStoreError?
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                do throws(KeyStoreError) {
                    let n = try KeyStoreError.mapping { try file.read(into: buffer.baseAddress! + done, count: count - done, at: offset + done) }
                    if n == 0 { break }
                    done += n
                } catch {
                    failure = error
                    break
                }
            }
            initialized = done
        }
        if let failure { throw failure }
        return out
    }
}
