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

    /// An error for `operation` on `path` with `errno` `code`.
    public init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation; self.path = path; self.code = code
    }

    /// `cannot fsync /x/events.jsonl: No space left on device`.
    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }

    /// True for "no such file or directory".
    public var isNotFound: Bool { code == ENOENT }
}
