import Glibc

// MARK: - FileSystem + create

extension FileSystem {
    /// Creates `path` holding `bytes` with exactly `mode` (whatever the umask), durably and only if
    /// nothing is there: temp file (`O_EXCL`), fsync, `link` to `path` (which, unlike `rename`,
    /// fails with `EEXIST` instead of replacing what another process put there), remove the temp,
    /// fsync the folder. Nothing is ever visible at `path` half-written.
    public static func createAtomically(_ bytes: [UInt8], at path: String, mode: mode_t) throws {
        let temp = "\(path).tmp-\(getpid())"
        do {
            if unlink(temp) != 0, errno != ENOENT { throw SystemError("remove", path: temp) }
            let file = try FileDescriptor(path: temp, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            guard fchmod(file.fd, mode) == 0 else { throw SystemError("chmod", path: temp) }
            try bytes.withUnsafeBytes { try file.write($0, at: 0) }
            try file.sync()
            guard link(temp, path) == 0 else { throw SystemError("create", path: path) }
        } catch {
            unlink(temp)
            throw error
        }
        unlink(temp)
        try syncDirectory(directoryName(path))
    }
}
