import Glibc
import LedgerDomain

// MARK: - SignInLocks

/// One lock per email that a sign-in holds from reading the email's record to appending its
/// outcome, so the next sign-in of that email decides from it: however many run at once, the
/// lockout policy sees every earlier attempt. Sign-ins of different emails do not wait for each other.
public protocol SignInLocks: AnyObject {
    /// Waits for the lock of `email` (already normalized) and takes it.
    func acquire(email: String) throws -> any HeldSignInLock
    /// An erasure forgets `emails` (none held by this process): whatever a lock of one keeps beside
    /// the store (a file named by its hash, a marker left in it) is removed.
    func forget(emails: [String]) throws
}

extension SignInLocks {
    /// Locks that keep nothing beside the store have nothing to forget.
    public func forget(emails: [String]) throws {}
}

/// A sign-in lock this process holds, and the pending-check marker it keeps: a holder announces a
/// password check durably before running it and clears it once the check's outcome is appended, so
/// a check whose outcome never reached the log (the process was killed, or the append failed) is
/// left behind for the next holder of the email's lock to count.
public protocol HeldSignInLock: AnyObject {
    /// The check an earlier holder announced and never cleared; nil when there is none.
    var leftover: PendingCheck? { get }
    /// Records `check` durably before it runs (after the leftover, if any, is cleared); when this
    /// throws, the check must not run (nothing of the marker is kept then, when that can be undone).
    func notePendingCheck(_ check: PendingCheck) throws
    /// Forgets the leftover or this holder's check, once its outcome is in the log.
    func clearPendingCheck() throws
    /// Releases the lock, leaving a marker that was not cleared for the next holder.
    func release()
}

// MARK: - FileSignInLocks

/// An exclusive `flock` on `DIR/locks/<SHA-256 hex of the email>.signin` (one host: the kernel drops
/// a dead process's lock). The file holds the pending-check marker (`PendingCheck.marker`, written
/// and `fdatasync`ed before the check, truncated once its outcome is appended). It is removed on
/// release when it holds no marker, so only emails being signed in, or with a check left uncounted,
/// have one; a file left with a marker (its holder died, or could not append the outcome) stays in
/// place, so the next holder locks that same file and finds the marker.
public final class FileSignInLocks: SignInLocks {
    /// The data directory.
    public let directory: String

    /// The sign-in locks of data directory `directory`.
    public init(directory: String) { self.directory = directory }

    /// The lock file of `email`: named by its hash, never by the email itself.
    public static func path(directory: String, email: String) -> String {
        FileSystem.join(FileSystem.join(directory, "locks"), SHA256.hex(Array(email.utf8)) + ".signin")
    }

    /// Takes each email's lock, drops any marker left in its file, and removes the file: nothing named
    /// by an erased email's hash stays in `locks/` (a check left uncounted no longer counts: the
    /// address is forgotten).
    public func forget(emails: [String]) throws {
        for email in Set(emails) where !email.isEmpty && FileSystem.exists(Self.path(directory: directory, email: email)) {
            let held = try acquire(email: email)
            try held.clearPendingCheck()
            held.release()
        }
        if !emails.isEmpty { try? FileSystem.syncDirectory(FileSystem.join(directory, "locks")) }
    }

    /// Waits for the `flock` of `email`'s file. A holder removes the file before it unlocks, so after
    /// locking we check that the path still names the file we locked (else we start over on the new one).
    public func acquire(email: String) throws -> any HeldSignInLock {
        try StoreError.mapping {
            try FileSystem.makeOwnFolder(FileSystem.join(directory, "locks"))
            let path = Self.path(directory: directory, email: email)
            while true {
                // Made new (O_EXCL tells), its name is durable only once the folder is synced: the
                // marker's holder syncs it with the marker.
                var created = true
                let file: FileDescriptor
                do {
                    file = try FileDescriptor(path: path, flags: O_RDWR | O_CREAT | O_EXCL)
                } catch let error as SystemError where error.code == EEXIST {
                    created = false
                    // Its holder may remove it between the two opens: then start over and create it.
                    do { file = try FileDescriptor(path: path, flags: O_RDWR) } catch let error as SystemError where error.code == ENOENT { continue }
                }
                try file.lock(LOCK_EX)
                if let mine = file.identity(), mine == FileIdentity(path: path) { return try Held(file: file, path: path, created: created) }
            }
        }
    }

    private final class Held: HeldSignInLock {
        let file: FileDescriptor
        let path: String
        let leftover: PendingCheck?
        /// True while the file holds a marker that must outlive this holder.
        private var marked: Bool
        /// True while the file holds the marker this holder noted (not the leftover).
        private var noted = false
        /// True while the file's name may not be durable yet (this holder created it, the folder unsynced).
        private var nameUnsynced: Bool

        /// Reads the marker a locked file holds; anything that is not a whole marker is a write
        /// that never completed (its check never ran) and is dropped.
        init(file: FileDescriptor, path: String, created: Bool) throws {
            self.file = file; self.path = path; self.nameUnsynced = created
            let size = try file.size()
            var bytes = [UInt8](repeating: 0, count: min(size, 128))
            let read = size == 0 ? 0 : try bytes.withUnsafeMutableBytes { try file.read(into: $0.baseAddress!, count: $0.count, at: 0) }
            leftover = size <= 128 ? PendingCheck(marker: Array(bytes.prefix(read))) : nil
            if size > 0, leftover == nil { try file.truncate(to: 0) }
            marked = leftover != nil
        }

        func notePendingCheck(_ check: PendingCheck) throws {
            let wasMarked = marked
            marked = true
            do {
                try StoreError.mapping {
                    try check.marker.withUnsafeBytes { try file.write($0, at: 0) }
                    try file.syncData()
                    // The marker is durable only with the file's name: a power cut must not forget the check.
                    if nameUnsynced { try FileSystem.syncDirectory(FileSystem.directoryName(path)); nameUnsynced = false }
                }
                noted = true
            } catch {
                if !wasMarked, (try? file.truncate(to: 0)) != nil { marked = false }
                throw error
            }
        }

        /// A leftover is truncated away, since this holder goes on; its own marker is only dropped
        /// with the file on release (one system call less per sign-in): killed before that, it
        /// leaves a marker whose outcome the log holds, which the next holder does not count again.
        func clearPendingCheck() throws {
            if !noted { try StoreError.mapping { try file.truncate(to: 0) } }
            marked = false
        }

        func release() {
            if !marked { unlink(path) }
            file.unlock()
        }
    }
}
