import LedgerDomain

// MARK: - RegistrationLocks

/// How a process marks a registration it is running, so `recover` and `audit` (on any host that
/// shares the store) can tell a running registration from one whose process died.
public protocol RegistrationLocks: AnyObject {
    /// Takes the lock of `registration`, or nil when a live process holds it.
    func acquire(_ registration: String) throws -> (any HeldRegistrationLock)?
    /// True when a live process holds the lock of `registration`.
    func isHeld(_ registration: String) -> Bool
    /// Image names noted by registrations that live processes are running (blobs to leave alone).
    /// Throws when the locks cannot be trusted to say (a `locks/` folder that is a link).
    func imagesOfRunningRegistrations() throws -> Set<String>
    /// Removes what processes that died left behind, except for registrations where `unfinished` is
    /// true. Throws, removing nothing, when the locks' place is not theirs (a `locks/` that is a link).
    func removeStale(unfinished: (String) -> Bool) throws
}

/// A registration lock this process holds.
public protocol HeldRegistrationLock: AnyObject {
    /// Records `imageName` before its blob is written, so `recover` leaves it alone.
    func noteImage(_ imageName: String) throws
    /// Releases the lock and forgets its notes.
    func release()
}

// MARK: - FileRegistrationLocks

/// `RegistrationLock` files under `DIR/locks/` (one host: the kernel drops a dead process's `flock`).
public final class FileRegistrationLocks: RegistrationLocks {
    /// The data directory.
    public let directory: String

    /// The locks of data directory `directory`.
    public init(directory: String) { self.directory = directory }

    /// Takes the `flock` of `registration`.
    public func acquire(_ registration: String) throws -> (any HeldRegistrationLock)? {
        try RegistrationLock.acquire(directory: directory, registration: registration).map {
            HeldFileLock(lock: $0, directory: directory, registration: registration)
        }
    }

    /// True when a live process holds the lock file's `flock`.
    public func isHeld(_ registration: String) -> Bool { RegistrationLock.isHeld(directory: directory, registration: registration) }

    /// The images noted in held lock files.
    public func imagesOfRunningRegistrations() throws -> Set<String> { try RegistrationLock.imagesOfRunningRegistrations(directory: directory) }

    /// Lock files left by processes killed after their registration's last event, or before its first.
    /// A live process holds its lock, so `acquire` fails and the file stays. A `locks` that is a link
    /// is refused before anything in it is listed or removed.
    public func removeStale(unfinished: (String) -> Bool) throws {
        let names: [String]
        do { names = try FileBlobStore.list(FileSystem.join(directory, "locks")) } catch let error as SystemError where error.isNotRegular { throw error } catch { return }
        for name in names where name.hasSuffix(".lock") {
            let registration = String(name.dropLast(5))
            guard !unfinished(registration),
                  let lock = try? RegistrationLock.acquire(directory: directory, registration: registration) else { continue }
            lock.release(directory: directory, registration: registration)
        }
    }

    private final class HeldFileLock: HeldRegistrationLock {
        let lock: RegistrationLock
        let directory: String
        let registration: String

        init(lock: RegistrationLock, directory: String, registration: String) {
            self.lock = lock; self.directory = directory; self.registration = registration
        }

        func noteImage(_ imageName: String) throws { try lock.noteImage(imageName) }
        func release() { lock.release(directory: directory, registration: registration) }
    }
}
