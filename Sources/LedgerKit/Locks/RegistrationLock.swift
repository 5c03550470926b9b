import Glibc
import LedgerDomain

// MARK: - RegistrationLock

/// An exclusive `flock` per registration in `DIR/locks/`, held while its process runs it.
/// The kernel releases it when the process dies, so `recover` can tell running from dead.
public final class RegistrationLock {
    private let file: FileDescriptor

    private init(file: FileDescriptor) { self.file = file }

    /// The lock file of `registration`.
    public static func path(directory: String, registration: String) -> String {
        FileSystem.join(FileSystem.join(directory, "locks"), "\(registration).lock")
    }

    /// Takes the lock of `registration`, or nil when another live process holds it.
    /// The lock file is removed on release, so after locking we check that the path still names the
    /// file we locked (else someone released and unlinked it meanwhile, and we start over).
    public static func acquire(directory: String, registration: String) throws -> RegistrationLock? {
        try FileSystem.makeOwnFolder(FileSystem.join(directory, "locks"))
        let lockPath = path(directory: directory, registration: registration)
        var busy = 0
        while busy < 5 {
            let file = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            // `isHeld` probes with a brief shared lock; a few short retries keep a probe from looking like a runner.
            guard try file.tryLock(LOCK_EX) else {
                busy += 1
                usleep(2_000)
                continue
            }
            var mine = stat(), named = stat()
            if fstat(file.fd, &mine) == 0, stat(lockPath, &named) == 0, mine.st_ino == named.st_ino, mine.st_dev == named.st_dev {
                return RegistrationLock(file: file)
            }
        }
        return nil
    }

    /// True when a live process holds the lock of `registration`.
    public static func isHeld(directory: String, registration: String) -> Bool {
        let path = path(directory: directory, registration: registration)
        guard FileSystem.exists(path), let file = try? FileDescriptor(path: path, flags: O_RDONLY),
              let free = try? file.tryLock(LOCK_SH) else { return false }
        if free { file.unlock() }
        return !free
    }

    /// Releases the lock and removes its file (best effort).
    public func release(directory: String, registration: String) {
        unlink(Self.path(directory: directory, registration: registration))
        file.unlock()
    }
}

// MARK: - Notes

extension RegistrationLock {
    /// Records `imageName` in the lock file before its blob is written, so `recover` leaves it alone.
    public func noteImage(_ imageName: String) throws {
        try Array(imageName.utf8).withUnsafeBytes { raw in try file.write(raw, at: 0) }
    }

    /// The image names noted in locks that live processes hold (blobs that `recover` must not touch).
    /// A `locks` that is not a real folder is refused (`FileBlobStore.list`); an unreadable one has none.
    public static func imagesOfRunningRegistrations(directory: String) throws -> Set<String> {
        let folder = FileSystem.join(directory, "locks")
        let names: [String]
        do { names = try FileBlobStore.list(folder) } catch let error as SystemError where error.isNotRegular { throw error } catch { return [] }
        var out = Set<String>()
        for name in names where name.hasSuffix(".lock") {
            let registration = String(name.dropLast(5))
            guard isHeld(directory: directory, registration: registration),
                  let bytes = try? FileSystem.read(FileSystem.join(folder, name), limit: 64) else { continue }
            out.insert(String(decoding: bytes, as: UTF8.self))
        }
        return out
    }
}
