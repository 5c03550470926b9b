import Glibc

// MARK: - SystemError

/// A failed system call, naming the operation, the path and the OS reason.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call (`open`, `write`, `fsync`, `rename`, ...).
    public let operation: String
    /// The file or folder involved.
    public let path: String
    /// The errno value.
    public let code: Int32
    /// Said instead of the OS reason when set (a refusal the OS did not make in those words).
    public let reason: String?

    /// An error for `operation` on `path` with `errno` `code`.
    public init(_ operation: String, path: String, code: Int32 = errno, reason: String? = nil) {
        self.operation = operation; self.path = path; self.code = code; self.reason = reason
    }

    /// `path` is not a regular file (`why`: a symbolic link, a FIFO, ...): ledger opens no other kind.
    public static func notRegular(_ path: String, _ why: String) -> SystemError {
        SystemError("open", path: path, code: ELOOP, reason: "\(why), not a regular file")
    }

    /// `path` is a folder where a file was to be opened.
    public static func folder(_ path: String) -> SystemError {
        SystemError("open", path: path, code: EISDIR, reason: "it is a folder, not a regular file")
    }

    /// This error said as a read of a folder (`cannot read PATH: it is a directory`) when a folder
    /// was met where a key or state file was to be read: not the advice meant for a log file.
    public var asFileRead: SystemError { isFolder && operation == "open" ? SystemError("read", path: path, code: EISDIR) : self }

    /// `path` has `names` names (hard links): ledger writes no file that another name shares.
    public static func hardLinked(_ path: String, names: Int) -> SystemError {
        SystemError("open", path: path, code: ELOOP, reason: "it is a hard link (the file has \(names) names), not a file of its own")
    }

    /// `path`, a folder of the data directory's own (`locks/`, `profile_image/`), is not a real
    /// folder (`why`: a symbolic link, a file, ...): nothing in it is listed, created or removed.
    public static func notFolder(_ path: String, _ why: String) -> SystemError {
        SystemError("open", path: path, code: ELOOP, reason: "\(why), not a folder")
    }

    /// `cannot fsync /x/events.jsonl: No space left on device`.
    public var description: String { "cannot \(operation) \(path): \(reason ?? String(cString: strerror(code)))" }

    /// True when the path was refused for its kind (`notRegular`, `hardLinked`, `notFolder`).
    public var isNotRegular: Bool { (code == ELOOP || code == EISDIR) && reason != nil }

    /// True when the path is a folder where a file was to be opened.
    public var isFolder: Bool { code == EISDIR }

    /// True when the system refused the call for the caller's permissions.
    public var isPermissionDenied: Bool { code == EACCES || code == EPERM }

    /// True for "no such file or directory".
    public var isNotFound: Bool { code == ENOENT }
}
