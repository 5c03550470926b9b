import Glibc

// MARK: - StandardDescriptors

/// Descriptors 0, 1 and 2 made to exist before the process opens anything. A process started with
/// one of them closed (`ledger recover >&-`, a careless service manager) would otherwise get a data
/// file as that number, and a notice meant for standard error would be written into the log. As
/// SQLite does, each closed one is opened on `/dev/null` first; which were closed is remembered, so a
/// command whose output the user must receive can refuse before it acts.
public struct StandardDescriptors: Equatable, Sendable {
    /// True when standard input was closed at start.
    public var stdinWasClosed = false
    /// True when standard output was closed at start.
    public var stdoutWasClosed = false
    /// True when standard error was closed at start.
    public var stderrWasClosed = false

    /// All three were open.
    public init() {}

    /// Opens `/dev/null` on each of 0, 1 and 2 that is closed, and says which were. Called first in
    /// `main`, before any file is opened. When `/dev/null` itself cannot be opened the process exits
    /// with status 3: it must not go on with a standard descriptor free for a data file to take.
    public static func ensureOpen() -> StandardDescriptors {
        var closed = StandardDescriptors()
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // open returns the lowest free number: this one, since those below it are open by now.
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            guard opened == fd else { exit(3) }
            switch fd {
            case 0: closed.stdinWasClosed = true
            case 1: closed.stdoutWasClosed = true
            default: closed.stderrWasClosed = true
            }
        }
        return closed
    }
}
