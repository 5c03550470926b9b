import Glibc
import LedgerDomain

// MARK: - WritersLockShared

/// The writers' lock of a data folder (`events.lock`), taken shared by a process that only reads
/// or replaces a cache: writers append, drop the caches and destroy keys under it, exclusive, so
/// what is done under it sees the log, the caches and the erasure marker as one writer left them.
enum WritersLockShared {
    /// `body`'s result, run under the writers' lock of the log at `logPath`, shared, when its
    /// folder has one (else without: no writer has written there yet).
    static func run<T>(logPath: String, _ body: () throws -> T) rethrows -> T {
        let lock = try? FileDescriptor(path: lockPath(logPath), flags: O_RDONLY)
        try? lock?.lock(LOCK_SH)
        defer { lock?.unlock() }
        return try body()
    }

    /// `body`'s result under the writers' lock, shared, for what replaces a cache: the lock is
    /// asked for a few times over about a tenth of a second rather than waited for (a writer stuck
    /// under it must not hold a read up: the cache is not replaced then, and nil returned). A
    /// folder without the lock file (no writer has written there yet, or a log outside a data
    /// folder) runs `body` without it: a read never makes the file, which would be its user's and
    /// could keep the folder's owner from writing. A lock file that cannot be opened for reading
    /// (another type of file, or not readable) gives nil.
    static func runIfFree<T>(logPath: String, _ body: () throws -> T) rethrows -> T? {
        let path = lockPath(logPath)
        guard let lock = try? FileDescriptor(path: path, flags: O_RDONLY) else {
            var info = stat()
            return lstat(path, &info) != 0 && errno == ENOENT ? try body() : nil
        }
        for attempt in 0..<Self.tries {
            if (try? lock.tryLock(LOCK_SH)) == true {
                defer { lock.unlock() }
                return try body()
            }
            if attempt + 1 < Self.tries { usleep(5_000) }
        }
        return nil
    }

    /// How many times `runIfFree` asks for the lock, 5 ms apart.
    static let tries = 20

    /// The writers' lock file of the log at `logPath`.
    private static func lockPath(_ logPath: String) -> String { FileSystem.join(FileSystem.directoryName(logPath), "events.lock") }

    /// True when an erasure is under way or cut short beside the log at `logPath` (its marker,
    /// `erasure.pending`, is there: its event may be appended, its keys and the caches not yet gone).
    static func erasureUnderWay(logPath: String) -> Bool {
        FileSystem.exists(FileSystem.join(FileSystem.directoryName(logPath), FileEventStore.erasureMarkerName))
    }

    /// True when the bytes of `log` from `offset` to its end may hold an erasure event (a line whose
    /// type is `PersonalDataErased` or `AddressDataErased`, as writers spell it), or cannot be read.
    /// Only ever a reason not to save a cache: a forged line changes nothing else.
    static func mayHoldErasure(_ log: FileDescriptor, from offset: Int) -> Bool {
        guard let size = try? log.size() else { return true }
        guard size > offset else { return false }
        let needles = [EventType.personalDataErased, .addressDataErased].map { Array("\"type\":\"\($0.rawValue)\"".utf8) }
        let overlap = needles.map(\.count).max()! - 1
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk + overlap, alignment: 16)
        defer { buffer.deallocate() }
        var at = offset, kept = 0
        while at < size {
            guard let read = try? log.read(into: buffer + kept, count: min(chunk, size - at), at: at), read > 0 else { return true }
            let filled = kept + read
            for needle in needles where contains(UnsafeRawBufferPointer(start: buffer, count: filled), needle) { return true }
            kept = min(overlap, filled)
            memmove(buffer, buffer + filled - kept, kept)
            at += read
        }
        return false
    }

    /// True when `bytes` hold `needle`.
    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= needle.count else { return false }
        return needle.withUnsafeBytes { wanted in
            let last = bytes.count - needle.count
            var at = 0
            while at <= last, let found = memchr(base + at, Int32(needle[0]), last - at + 1) {
                if memcmp(found, wanted.baseAddress!, needle.count) == 0 { return true }
                at = base.distance(to: UnsafeRawPointer(found)) + 1
            }
            return false
        }
    }
}
