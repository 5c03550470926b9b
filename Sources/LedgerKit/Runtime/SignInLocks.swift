import Glibc
import LedgerDomain

// MARK: - SignInLocks

/// One lock per email that a sign-in holds from reading the email's record to appending its
/// outcome, so the next sign-in of that email decides from it: however many run at once, the
/// lockout policy sees every earlier attempt. Sign-ins of different emails do not wait for each other.
public protocol SignInLocks: AnyObject {
    /// Waits for the lock of `email` (already normalized) and takes it.
    func acquire(email: String) throws -> any HeldSignInLock
}

/// A sign-in lock this process holds.
public protocol HeldSignInLock: AnyObject {
    /// Releases the lock.
    func release()
}

// MARK: - FileSignInLocks

/// An exclusive `flock` on `DIR/locks/<SHA-256 hex of the email>.signin` (one host: the kernel drops
/// a dead process's lock). The file is removed on release, so only emails being signed in have one.
public final class FileSignInLocks: SignInLocks {
    /// The data directory.
    public let directory: String

    /// The sign-in locks of data directory `directory`.
    public init(directory: String) { self.directory = directory }

    /// The lock file of `email`: named by its hash, never by the email itself.
    public static func path(directory: String, email: String) -> String {
        FileSystem.join(FileSystem.join(directory, "locks"), SHA256.hex(Array(email.utf8)) + ".signin")
    }

    /// Waits for the `flock` of `email`'s file. A holder removes the file before it unlocks, so after
    /// locking we check that the path still names the file we locked (else we start over on the new one).
    public func acquire(email: String) throws -> any HeldSignInLock {
        try StoreError.mapping {
            try FileSystem.makeOwnFolder(FileSystem.join(directory, "locks"))
            let path = Self.path(directory: directory, email: email)
            while true {
                let file = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT)
                try file.lock(LOCK_EX)
                if let mine = file.identity(), mine == FileIdentity(path: path) { return Held(file: file, path: path) }
            }
        }
    }

    private final class Held: HeldSignInLock {
        let file: FileDescriptor
        let path: String

        init(file: FileDescriptor, path: String) { self.file = file; self.path = path }

        func release() {
            unlink(path)
            file.unlock()
        }
    }
}
