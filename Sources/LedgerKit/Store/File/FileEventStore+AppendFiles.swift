import Glibc
import LedgerDomain

// MARK: - AppendFiles

/// The lock file and the log an append uses, kept open between the appends of one store (as a
/// database keeps its files open): opening, checking and closing both by path cost an append five
/// more system calls than checking that the paths still name them.
struct AppendFiles {
    /// `events.lock`, open, and the file it was opened as.
    var lock: FileDescriptor
    var lockIdentity: FileIdentity
    /// `events.jsonl`, once an append opened it, and the file it was opened as.
    var log: FileDescriptor?
    var logIdentity: FileIdentity?
}

extension FileEventStore {
    // MARK: - Opening for an append

    /// The lock file, locked exclusively: the one kept open, else one opened afresh — in both cases
    /// checked after locking that `lockPath` still names it, so that a lock file replaced meanwhile
    /// (which another writer may hold) is never trusted.
    func lockForAppend() throws -> FileDescriptor {
        // Waiting, the lock is always taken.
        try lockForAppend(waiting: true)!
    }

    /// `lockForAppend`, or nil at once when another process holds the lock (`waiting` false).
    func lockForAppend(waiting: Bool) throws -> FileDescriptor? {
        func take(_ file: FileDescriptor) throws -> Bool {
            if waiting { try file.lock(LOCK_EX); return true }
            return try file.tryLock(LOCK_EX)
        }
        if let files = appendFiles {
            guard try take(files.lock) else { return nil }
            if FileIdentity(path: lockPath) == files.lockIdentity { return files.lock }
            files.lock.unlock()
            appendFiles = nil
        }
        for _ in 0..<100 {
            try FileSystem.makeDirectories(directory)
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            guard try take(lock) else { return nil }
            if let identity = lock.identity(), FileIdentity(path: lockPath) == identity {
                appendFiles = AppendFiles(lock: lock, lockIdentity: identity, log: nil, logIdentity: nil)
                return lock
            }
            lock.unlock()  // replaced between the open and the lock: open what the path names now
        }
        throw SystemError("lock", path: lockPath, code: EAGAIN)
    }

    /// The log, under the exclusive lock: the one kept open when `logPath` still names it, else
    /// opened (created, and its folder synced, when there is none).
    func logForAppend() throws -> FileDescriptor {
        if let log = appendFiles?.log, let identity = appendFiles?.logIdentity, FileIdentity(path: logPath) == identity {
            return log
        }
        let isNew = !FileSystem.exists(logPath)
        let log = try FileDescriptor(path: logPath, flags: O_RDWR | O_CREAT)
        if isNew { try FileSystem.syncDirectory(directory) }
        appendFiles?.log = log
        appendFiles?.logIdentity = log.identity()
        return log
    }
}

// MARK: - Data version

extension FileEventStore {
    /// The path of the folder's key store.
    public var keyStorePath: String { FileSystem.join(directory, KeyStore.fileName) }

    /// The log's data version: 2 when the folder has a key store, when the log holds no line yet
    /// (the key store is then made: a new folder writes version 2), or when its first line says so
    /// (a version 2 line, or the `LogMigrated` a migration starts with: its key store is missing);
    /// else 1 (a version 1 log keeps being written in version 1 until `migrate`).
    public var dataVersion: Int {
        if FileSystem.exists(keyStorePath) { return 2 }
        guard let log = try? FileDescriptor(path: logPath, flags: O_RDONLY), let size = try? log.size(), size > 0 else { return 2 }
        return Self.firstLineIsVersion2(log) ? 2 : 1
    }

    /// True when the log's first line is a data version 2 line or a `LogMigrated`: a log whose key
    /// store is gone, never to be written in clear.
    static func firstLineIsVersion2(_ log: FileDescriptor) -> Bool {
        guard let bytes = try? bytes(of: log, at: 0, count: 1 << 16), let newline = bytes.firstIndex(of: 0x0A) else { return false }
        let line = Array(bytes[..<newline])
        return line.withUnsafeBufferPointer { all in
            guard let (envelope, _) = try? LineCodec.decode(all, lineNumber: 1) else { return false }
            return envelope.v >= 2 || envelope.type == EventType.logMigrated.rawValue
        }
    }

    /// The key store a writer encrypts personal members with, under the append lock: nil for a
    /// version 1 log. Made when the log holds no line yet. A version 2 log whose key store is gone
    /// is refused: its personal data would otherwise be written in clear, and what it wrote so far
    /// is lost without the store (restore `events.keys` from a backup).
    func dataKeys() throws -> KeyStore? {
        if let openKeys, FileSystem.exists(keyStorePath) { return openKeys }
        if !FileSystem.exists(keyStorePath), prefix.verifiedSize > 0 {
            guard let log = try? FileDescriptor(path: logPath, flags: O_RDONLY), Self.firstLineIsVersion2(log) else { return nil }
            throw StoreError(.unavailable, "the log is data version 2 but its key store \(keyStorePath) is missing: restore it from a backup "
                             + "(nothing is written without it: personal data would be stored in clear, and `ledger verify` reports what it lost as missing-key)")
        }
        // Emptied or zeroed beside a version 2 log that holds lines: made anew, it would lose every
        // key for good (a creation cut short happens only before the first line is written).
        if prefix.verifiedSize > 0, LogSource.isCutShortCreation(keyStorePath),
           let log = try? FileDescriptor(path: logPath, flags: O_RDONLY), Self.firstLineIsVersion2(log) {
            throw StoreError(.damaged, "the log is data version 2 but its key store \(keyStorePath) is empty: keys were lost; writers refuse "
                             + "until events.keys is restored from a backup (a new key store would lose every key for good) — run `ledger verify`",
                             reason: "missing-key")
        }
        let keys: KeyStore
        do {
            keys = try KeyStore(path: keyStorePath, writable: true)
        } catch {
            try checkKeyStore()  // a link, a FIFO, a folder, a file that is not a key store: said as such
            throw StoreError(.io, "the key store \(keyStorePath) cannot be opened: \(error.message)",
                             reason: error.cause?.isNotRegular == true ? StoreError.notRegularFile : nil)
        }
        try checkKeysKnowTheLog(keys)
        openKeys = keys
        return openKeys
    }
}
