import Glibc
import LedgerDomain

// MARK: - KeyStore

/// The file store's data keys, one per subject (`SubjectID`), in `events.keys` beside the log and
/// never in it: an open-addressed table of fixed 128-byte slots (`KeyStoreLayout`). A lookup reads
/// one 4 KiB page of slots in the common case (at most 128 slots); a new key and an erasure are one slot written with
/// `pwrite` and made durable with `fdatasync` before they return, never a rewrite of the file.
/// Only when a new subject finds no free slot in its window does the table double, into a new file
/// (temp, fsync, rename, fsync the folder). O(1) per operation; growth O(n), amortised.
///
/// Writers (`createKey`, `erase`, growth) hold an exclusive `flock` on the file, and re-open it when
/// the path names another file by the time they hold it (another process grew the table); readers
/// check that the path still names their file on every lookup, and re-read a slot they find torn
/// under a shared lock before reporting it (a concurrent writer's slot is not torn). The file is
/// opened like the other data files: never through a symbolic link (`O_NOFOLLOW`), never written
/// through a second name (a hard link), created with mode 0600.
public final class KeyStore {
    /// The key store's name in the data directory.
    public static let fileName = "events.keys"

    /// A subject's key, as the store knows it.
    public enum KeyState: Equatable, Sendable {
        /// A key exists.
        case live
        /// The key was destroyed by an erasure.
        case erased
        /// No key was ever made (or the store lost it: with no erasure event, data loss).
        case absent
    }

    /// The key file.
    public let path: String
    /// False when opened read-only.
    public let writable: Bool
    /// The open file.
    var file: FileDescriptor
    /// Its number of slots.
    var capacity: Int
    /// True (the default) when each new key and erasure is synced before it returns. A writer that
    /// fills a store nobody else sees yet (`ledger migrate`, in its temporary folder) turns it off
    /// and calls `sync()` once before the folder is put in place.
    public var syncsEachWrite = true
    /// The slots of keys made since the last `sync()` while `syncsEachWrite` is off.
    private var unsynced: [Int] = []

    /// Opens the key store of the data directory `directory` (`events.keys`), creating it when
    /// `writable` and absent.
    public convenience init(directory: String, writable: Bool = true) throws(KeyStoreError) {
        try self.init(path: FileSystem.join(directory, Self.fileName), writable: writable)
    }

    /// Opens the key store at `path`; when `writable`, creates an empty one there if none exists
    /// (made durable, folder entry included, before this returns).
    public init(path: String, writable: Bool = true) throws(KeyStoreError) {
        self.path = path
        self.writable = writable
        (file, capacity) = try Self.open(path, writable: writable)
    }

    // MARK: - Reading

    /// The live key of `subject`, nil when it was erased or never made.
    public func key(for subject: SubjectID) throws(KeyStoreError) -> [UInt8]? {
        if case .found(_, let slot) = try lookup(subject), slot.state == .live { return slot.key }
        return nil
    }

    /// Whether `subject` has a live key, an erased one, or none.
    public func state(of subject: SubjectID) throws(KeyStoreError) -> KeyState {
        guard case .found(_, let slot) = try lookup(subject) else { return .absent }
        return slot.state == .live ? .live : .erased
    }

    /// Where `subject` lies, read without a lock; a torn slot is read again under a shared lock.
    private func lookup(_ subject: SubjectID) throws(KeyStoreError) -> Probe {
        try followReplacement()
        let probe = try self.probe(subject)
        guard case .torn = probe else { return probe }
        try KeyStoreError.mapping { try file.lock(LOCK_SH) }
        defer { file.unlock() }
        let again = try self.probe(subject)
        if case .torn(let index, _) = again { throw Self.torn(index, path) }
        return again
    }

    // MARK: - Writing

    /// The key of `subject`: its live key when it has one, else a new random 256-bit key from
    /// `random`, durable in its slot before this returns. Refused (`subject-erased`) when the
    /// subject's key was erased: a forgotten subject never gets a key again. Without `mayCreate`
    /// (the subject is already named by the log) an absent key is `missing-key`, never made anew.
    public func createKey(for subject: SubjectID, random: some RandomSource, mayCreate: Bool = true) throws(KeyStoreError) -> [UInt8] {
        try whileLocked { () throws(KeyStoreError) -> [UInt8]? in
            switch try probe(subject) {
            case .found(_, let slot) where slot.state == .live: return slot.key
            case .found: throw KeyStoreError(.subjectErased, "the key of \(subject) was erased; it is never made again")
            case .torn(let index, _): throw Self.torn(index, path)
            case .free where !mayCreate: throw KeyStoreError.missing(subject)
            case .free(let index):
                let key = random.bytes(AESGCM.keySize)
                guard key.count == AESGCM.keySize else { throw KeyStoreError(.io, "the random source gave \(key.count) bytes, not 32") }
                try write(KeySlot(state: .live, subject: subject, key: key), at: index, syncing: false)
                guard syncsEachWrite else {
                    unsynced.append(index)
                    return key
                }
                do throws(KeyStoreError) {
                    try KeyStoreError.mapping { try file.syncData() }
                } catch {
                    emptySlots([index])
                    throw error
                }
                return key
            case .full:
                try grow()
                return nil
            }
        }
    }

    /// Destroys the key of `subject`: its slot is rewritten as erased with zeros where the key was,
    /// and synced before this returns. A subject without a key gets an erased slot (so it is never
    /// given one); erasing twice changes nothing. A torn slot that still names the subject is
    /// overwritten as erased (the key it may hold goes with it).
    public func erase(subject: SubjectID) throws(KeyStoreError) {
        let erased = KeySlot(state: .erased, subject: subject, key: [UInt8](repeating: 0, count: AESGCM.keySize))
        _ = try whileLocked { () throws(KeyStoreError) -> Bool? in
            switch try probe(subject) {
            case .found(_, let slot) where slot.state == .erased: return true
            case .found(let index, _), .free(let index): try write(erased, at: index)
            case .torn(let index, let tornSubject):
                guard tornSubject == subject else { throw Self.torn(index, path) }
                try write(erased, at: index)
            case .full:
                try grow()
                return nil
            }
            return true
        }
    }

    /// Writes `slot` at `index` and, unless told not to, syncs it.
    private func write(_ slot: KeySlot, at index: Int, syncing: Bool = true) throws(KeyStoreError) {
        let bytes = slot.encoded()
        try KeyStoreError.mapping {
            try bytes.withUnsafeBytes { try file.write($0, at: KeyStoreLayout.offset(ofSlot: index)) }
            if syncing && syncsEachWrite { try file.syncData() }
        }
    }

    /// Makes every slot written so far durable (after writes with `syncsEachWrite` off). When the
    /// sync fails, every key made since the last sync is emptied again: none of them is ever used.
    /// An `fdatasync`: slots are written inside the file's size (only a growth, which writes and
    /// syncs a new file, changes it), and it flushes the blocks they were given with them.
    public func sync() throws(KeyStoreError) {
        let made = unsynced
        unsynced = []
        do throws(KeyStoreError) {
            try KeyStoreError.mapping { try file.syncData() }
        } catch {
            emptySlots(made)
            throw error
        }
    }

    /// True when keys were made since the last sync (with `syncsEachWrite` off).
    public var hasUnsyncedKeys: Bool { !unsynced.isEmpty }

    /// Records new slots written at `indices` for the next `sync()` (with `syncsEachWrite` off).
    func noteUnsynced(_ indices: [Int]) { unsynced += indices }

    /// Forgets the keys made since the last sync: they were made durable another way (a growth
    /// wrote and synced the whole table).
    func markAllSynced() { unsynced = [] }

    /// Empties the slots at `indices` (new keys whose sync failed): in this process's view and, once
    /// written back, on disk, so that the next key of their subjects is a new one and no line is
    /// ever sealed under a key that may not be on disk.
    func emptySlots(_ indices: [Int]) {
        for index in indices {
            try? KeyStoreError.mapping { try [UInt8](repeating: 0, count: KeyStoreLayout.slotSize).withUnsafeBytes {
                try file.write($0, at: KeyStoreLayout.offset(ofSlot: index))
            } }
        }
    }

    /// Runs `body` holding the exclusive lock of the file the path names, again (after a re-open)
    /// while it returns nil (it grew the table).
    func whileLocked<T>(_ body: () throws(KeyStoreError) -> T?) throws(KeyStoreError) -> T {
        guard writable else { throw KeyStoreError(.readOnly, "the key store \(path) was opened read-only") }
        while true {
            try KeyStoreError.mapping { try file.lock(LOCK_EX) }
            let current = file
            defer { current.unlock() }
            if try followReplacement() { continue }
            if let result = try body() { return result }
        }
    }

    /// The error for a torn slot at `index`.
    static func torn(_ index: Int, _ path: String) -> KeyStoreError {
        KeyStoreError(.tornSlot, "slot \(index) of \(path) is torn (a write cut short, or damage): its key cannot be read", slot: index)
    }
}
