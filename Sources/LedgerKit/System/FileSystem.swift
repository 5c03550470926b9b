import Glibc

// MARK: - FileSystem

/// Small durable file-system operations: folders, atomic file replacement, directory fsync.
public enum FileSystem {
    /// True unless `path` is known to be absent (without following a final symlink): a folder on
    /// the way that may not be searched (`EACCES`) hides whether it exists, and the open that
    /// follows then says why, instead of the path passing for missing.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || (errno != ENOENT && errno != ENOTDIR)
    }

    /// True when `path` is a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and its missing parents (mode 0700), fsyncing each parent that gained an entry.
    /// Links on the way are followed: this is for the data directory, the operator's choice of
    /// folder; the data directory's own subfolders go through `makeOwnFolder`.
    public static func makeDirectories(_ path: String) throws {
        if isDirectory(path) { return }
        let parent = directoryName(path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw SystemError("create folder", path: path) }
        try syncDirectory(parent.isEmpty ? "." : parent)
    }

    /// Checks that `path`, a folder of the data directory's own (`locks/`, `profile_image/`), is a
    /// real folder and not a link (`lstat`): true when it is, false when nothing is there; anything
    /// else (a symbolic link, a file) is refused, so nothing in a link's target is listed, created
    /// or removed.
    @discardableResult
    public static func checkOwnFolder(_ path: String) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw SystemError("stat", path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return true
        case S_IFLNK: throw SystemError.notFolder(path, "it is a symbolic link")
        default: throw SystemError.notFolder(path, "it is not a folder")
        }
    }

    /// Creates `path`, a folder of the data directory's own, when it does not exist (its parents
    /// as `makeDirectories` does); one that exists must be a real folder (`checkOwnFolder`).
    public static func makeOwnFolder(_ path: String) throws {
        if try checkOwnFolder(path) { return }
        let parent = directoryName(path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0 {
            guard errno == EEXIST else { throw SystemError("create folder", path: path) }
            try checkOwnFolder(path)  // made meanwhile by another process, or something else put there
            return
        }
        try syncDirectory(parent.isEmpty ? "." : parent)
    }

    /// fsyncs a folder so that entries created, renamed or removed in it are durable.
    public static func syncDirectory(_ path: String) throws {
        let dir = try FileDescriptor(path: path, flags: O_RDONLY | O_DIRECTORY)
        try dir.sync()
    }

    /// Writes `bytes` to `path` durably: temp file, fsync, rename, fsync the folder. No half-written file remains.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
        try writeAtomically(to: path, mode: mode) { append in try bytes.withUnsafeBytes { try append($0) } }
    }

    /// Like `writeAtomically(_:to:mode:)` for content produced in pieces: `produce` gets a function
    /// that appends bytes to the temp file. Nothing is visible at `path` unless every piece was written.
    /// `renaming` is given the rename once the file is synced, and may decline to call it (a cache
    /// that is no longer true): the temp file then goes and nothing changes at `path`. With
    /// `unnamed`, the file has no name until the rename (`O_TMPFILE`, linked as the temp file just
    /// before it is renamed, where the file system allows it): a writer killed before the rename
    /// leaves nothing behind, not even a temp file.
    public static func writeAtomically(to path: String, mode: mode_t = 0o600, unnamed: Bool = false,
                                       renaming: (_ rename: () throws -> Void) throws -> Void = { try $0() },
                                       _ produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let temp = "\(path).tmp-\(getpid())"
        do {
            // Never opened through a name already there (a leftover, or a hard link to a file
            // elsewhere): the name goes first, then the file is created new.
            if unlink(temp) != 0, errno != ENOENT { throw SystemError("remove", path: temp) }
            let anonymous = unnamed ? try? FileDescriptor(path: directoryName(path), flags: Self.unnamedFile | O_WRONLY, mode: mode) : nil
            let file = try anonymous ?? FileDescriptor(path: temp, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            // Held until the file is renamed and closed: `StaleTemporaryFiles` removes a temporary
            // file only when it can take this lock (its writer is gone), never on the pid's word.
            _ = try? file.tryLock(LOCK_EX)
            var offset = 0
            try produce { bytes in
                try file.write(bytes, at: offset)
                offset += bytes.count
            }
            try file.sync()
            var renamed = false
            try renaming {
                if let code = IOFaults.fault(.rename) { throw SystemError("rename", path: path, code: code) }
                if anonymous != nil, linkat(AT_FDCWD, "/proc/self/fd/\(file.fd)", AT_FDCWD, temp, AT_SYMLINK_FOLLOW) != 0 {
                    throw SystemError("link", path: temp)
                }
                guard rename(temp, path) == 0 else { throw SystemError("rename", path: path) }
                renamed = true
            }
            guard renamed else { unlink(temp); return }
        } catch {
            unlink(temp)
            throw error
        }
        try syncDirectory(directoryName(path))
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`, as Linux defines it for x86-64 and arm64; Glibc's
    /// module does not export the macro): a file without a name in the folder opened.
    private static let unnamedFile: Int32 = 0o20000000 | O_DIRECTORY

    /// Reads a whole file; `limit` bounds the bytes read (a larger file throws EFBIG).
    public static func read(_ path: String, limit: Int = Int.max) throws -> [UInt8] {
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        let size = try file.size()
        guard size <= limit else { throw SystemError("read", path: path, code: EFBIG) }
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = try out.withUnsafeMutableBytes { (raw) throws -> Int in
                try file.read(into: raw.baseAddress! + done, count: size - done, at: done)
            }
            if n == 0 { break }
            done += n
        }
        return Array(out.prefix(done))
    }

    /// Removes `path` and fsyncs its folder; a missing file is not an error.
    public static func remove(_ path: String) throws {
        if unlink(path) != 0 {
            if errno == ENOENT { return }
            throw SystemError("remove", path: path)
        }
        try syncDirectory(directoryName(path))
    }

    /// The folder part of `path` (`.` when there is none).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// `a/b` joined with `c`.
    public static func join(_ base: String, _ name: String) -> String {
        base.hasSuffix("/") ? base + name : "\(base)/\(name)"
    }
}
