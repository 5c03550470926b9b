import Glibc

// MARK: - FileDescriptor

/// An owned POSIX file descriptor with the few calls the stores need; closed on deinit.
public final class FileDescriptor {
    /// The raw descriptor.
    public let fd: Int32
    /// The path it was opened with (for messages).
    public let path: String

    /// Opens `path` with `flags` (`O_CLOEXEC` is added) and `mode` for new files.
    ///
    /// A file (without `O_DIRECTORY`) must be a regular file named by `path` itself: a symbolic
    /// link there is refused (`O_NOFOLLOW`), so nothing is ever read or written through one, and
    /// a FIFO, device or folder is refused after `fstat` (opened non-blocking, so a FIFO cannot hang
    /// the open). Opened for writing, it must also have no other name: a hard link (`st_nlink` > 1)
    /// is refused before anything is written (`O_TRUNC` is applied only after the checks), so no
    /// file outside the data directory is written through a second name. Opened read-only, a hard
    /// link is read: it is the same file, and a reader changes nothing in it. A folder
    /// (`O_DIRECTORY`) is opened as named, links followed.
    public init(path: String, flags: Int32, mode: mode_t = 0o600) throws {
        let folder = flags & O_DIRECTORY != 0
        let writing = flags & O_ACCMODE != O_RDONLY
        let truncate = !folder && flags & O_TRUNC != 0
        let fd = Glibc.open(path, flags & ~(truncate ? O_TRUNC : 0) | O_CLOEXEC | (folder ? 0 : O_NOFOLLOW | O_NONBLOCK), mode)
        guard fd >= 0 else {
            let code = errno
            throw code == ELOOP && !folder ? SystemError.notRegular(path, "it is a symbolic link") : SystemError("open", path: path, code: code)
        }
        if !folder {
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let error = SystemError("stat", path: path)
                Glibc.close(fd)
                throw error
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                Glibc.close(fd)
                throw info.st_mode & S_IFMT == S_IFDIR ? SystemError.folder(path) : SystemError.notRegular(path, "it is \(Self.kind(of: info.st_mode))")
            }
            // 0 names: unlinked since the open (a lock released meanwhile); no other name to write through.
            guard !writing || info.st_nlink <= 1 else {
                Glibc.close(fd)
                throw SystemError.hardLinked(path, names: Int(info.st_nlink))
            }
            if truncate, ftruncate(fd, 0) != 0 {
                let error = SystemError("truncate", path: path)
                Glibc.close(fd)
                throw error
            }
            if flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        }
        self.fd = fd
        self.path = path
    }

    /// A descriptor of its own for the file `fd` has open (a `dup`), named `path` in messages.
    public init(duplicating fd: Int32, path: String) throws {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw SystemError("dup", path: path) }
        self.fd = copy
        self.path = path
    }

    /// What a file of mode `mode` is, for the refusal of anything but a regular file.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }

    deinit { Glibc.close(fd) }

    /// The file's (device, inode), nil when `fstat` fails.
    public func identity() -> FileIdentity? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    /// The file's size in bytes.
    public func size() throws -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("stat", path: path) }
        return Int(info.st_size)
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; 0 at end of file. Retries on EINTR.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws -> Int {
        while true {
            let n = pread(fd, buffer, count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw SystemError("read", path: path) }
        }
    }

    /// Writes all of `bytes` at `offset`, looping over short writes. Retries on EINTR.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        if let code = IOFaults.fault(.write) {
            // Like a real failure part-way: half the bytes may have reached the file.
            if bytes.count > 1 { _ = pwrite(fd, bytes.baseAddress!, bytes.count / 2, off_t(offset)) }
            throw SystemError("write", path: path, code: code)
        }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("write", path: path)
            }
            if n == 0 { throw SystemError("write", path: path, code: EIO) }
            done += n
        }
    }

    /// Flushes data and metadata to stable storage.
    public func sync() throws {
        if let code = IOFaults.fault(.fsync) { throw SystemError("fsync", path: path, code: code) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", path: path) }
    }

    /// `fdatasync`: makes the written bytes and what is needed to read them back (the size) durable,
    /// without the inode's times. What an append needs; counts as an fsync for `LEDGER_IO_FAULTS`.
    public func syncData() throws {
        if let code = IOFaults.fault(.fsync) { throw SystemError("fsync", path: path, code: code) }
        guard fdatasync(fd) == 0 else { throw SystemError("fdatasync", path: path) }
    }

    /// Cuts the file to `size` bytes.
    public func truncate(to size: Int) throws {
        guard ftruncate(fd, off_t(size)) == 0 else { throw SystemError("truncate", path: path) }
    }

    /// Takes an advisory lock (`LOCK_EX` or `LOCK_SH`), waiting for it. Released on close or process death.
    public func lock(_ operation: Int32) throws {
        while flock(fd, operation) != 0 {
            if errno != EINTR { throw SystemError("lock", path: path) }
        }
    }

    /// Tries to take an advisory lock without waiting; false when another process holds it.
    public func tryLock(_ operation: Int32) throws -> Bool {
        while flock(fd, operation | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw SystemError("lock", path: path) }
        }
        return true
    }

    /// Releases an advisory lock.
    public func unlock() { _ = flock(fd, LOCK_UN) }
}

// MARK: - FileIdentity

/// A file's (device, inode): what tells whether a path still names the file a descriptor has open.
public struct FileIdentity: Equatable, Sendable {
    /// The device.
    public var device: UInt64
    /// The inode.
    public var inode: UInt64

    /// The identity in `info`.
    init(_ info: stat) { device = UInt64(info.st_dev); inode = UInt64(info.st_ino) }

    /// The identity of the file `path` names now (following symlinks, as `open` does); nil when none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}
